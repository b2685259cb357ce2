import { Histogram, type Registry } from "prom-client";

/** What a prom-client histogram hands its registry. */
type Values<Label extends string> = Awaited<ReturnType<Histogram<Label>["get"]>>;
type HistogramValues = Values<"method">;
/** One line of the exposition: bucket lines carry `le` besides the method. */
type Sample = Values<"le" | "method">["values"][number];

/** How {@link MethodLatencyHistogram} is named and bucketed. */
export interface MethodLatencyOptions {
  readonly name: string;
  readonly help: string;
  /** Upper bounds of the buckets, seconds, ascending. */
  readonly buckets: readonly number[];
  readonly registry: Registry;
}

/** One method's latencies: a count per bucket (not cumulative), their sum and how many there were. */
class LatencySeries {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(buckets: number) {
    this.counts = new Float64Array(buckets);
  }
}

function refuseObserve(): never {
  throw new Error("MethodLatencyHistogram: use record(method, seconds)");
}

/**
 * A prom-client histogram of request latency by method whose observations skip prom-client's
 * per-observation label handling: validating, hashing and looking up the label set took a third of
 * the node's own work on an eth_getBalance answer. {@link record} adds to plain per-method counters; a
 * scrape reads them through prom-client's registry like any histogram's values. prom-client's own
 * `observe` would write where scrapes do not read, so it refuses.
 */
export class MethodLatencyHistogram extends Histogram<"method"> {
  readonly #options: MethodLatencyOptions;
  readonly #series = new Map<string, LatencySeries>();

  constructor(options: MethodLatencyOptions) {
    super({
      name: options.name,
      help: options.help,
      buckets: [...options.buckets],
      labelNames: ["method"],
      registers: [options.registry],
    });
    this.#options = options;
    // prom-client sets `observe` on each instance, so it is replaced here rather than overridden.
    this.observe = refuseObserve;
  }

  /** Counts one request of `method` that took `seconds`. */
  record(method: string, seconds: number): void {
    let series = this.#series.get(method);
    if (!series) {
      series = new LatencySeries(this.#options.buckets.length);
      this.#series.set(method, series);
    }
    const bounds = this.#options.buckets;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i++;
    if (i < bounds.length) series.counts[i]!++;
    series.sum += seconds;
    series.count++;
  }

  /** Every series as prom-client's histogram values: cumulative buckets, `+Inf`, sum and count. */
  override async get(): Promise<HistogramValues> {
    return this.getForPromString();
  }

  /** What prom-client's registry reads to write the text exposition. */
  async getForPromString(): Promise<HistogramValues> {
    const { name, help, buckets } = this.#options;
    const values: Sample[] = [];
    for (const [method, series] of this.#series) {
      let cumulative = 0;
      buckets.forEach((le, i) => {
        cumulative += series.counts[i]!;
        values.push({ labels: { le, method }, value: cumulative, metricName: `${name}_bucket` });
      });
      values.push(
        { labels: { le: "+Inf", method }, value: series.count, metricName: `${name}_bucket` },
        { labels: { method }, value: series.sum, metricName: `${name}_sum` },
        { labels: { method }, value: series.count, metricName: `${name}_count` },
      );
    }
    return { name, help, type: "histogram", aggregator: "sum", values } as unknown as HistogramValues;
  }

  /** Forgets every series. */
  override reset(): void {
    // prom-client's constructor resets the metric before this class's fields exist.
    if (#series in this) this.#series.clear();
    super.reset();
  }
}
