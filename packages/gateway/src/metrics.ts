import type { MetricsEndpoint } from "@strata/protocol/metrics-server";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** A label-bound counter or histogram, as prom-client's `labels(...)` returns it. */
type CounterChild = ReturnType<Counter<"method" | "tier" | "status">["labels"]>;
type HistogramChild = ReturnType<Histogram<"method" | "transport">["labels"]>;
type DecisionChild = ReturnType<Counter<"tier" | "decision">["labels"]>;

/** Distinct method labels kept before further names are counted as `other` (bounded cardinality). */
const MAX_METHOD_LABELS = 256;

/** The label-bound child kept under `key` in `children`, bound by `bind` the first time. */
function boundChild<Child>(children: Map<string, Child>, key: string, bind: () => Child): Child {
  let child = children.get(key);
  if (child === undefined) {
    child = bind();
    children.set(key, child);
  }
  return child;
}

/**
 * A cache, map or queue of the gateway that can grow: its size and the bound it never exceeds.
 * Exported as `strata_cache_size` and `strata_cache_bound`.
 */
export interface GrowingStructure {
  /** The `cache` label (see docs/operations.md for the list). */
  readonly name: string;
  readonly unit: "entries" | "bytes";
  readonly bound: number;
  size(): number;
}

/**
 * The gateway's Prometheus metrics, in a registry of their own (served on GET /metrics), with
 * prom-client's process and Node.js runtime metrics.
 */
export class GatewayMetrics implements MetricsEndpoint {
  readonly registry = new Registry();
  private readonly methods = new Set<string>();
  private readonly included: Registry[] = [];
  private readonly structureSources: (() => readonly GrowingStructure[])[] = [];
  /** Label-bound children by joined label values: the per-request path skips prom-client's label hashing. */
  private readonly requestChildren = new Map<string, CounterChild>();
  private readonly latencyChildren = new Map<string, HistogramChild>();
  private readonly decisionChildren = new Map<string, DecisionChild>();

  /** Serves the metrics of `registry` (e.g. an indexer running in the same process) with the gateway's. */
  include(registry: Registry): void {
    this.included.push(registry);
  }

  /** The Prometheus text of the gateway's metrics and of every included registry. */
  async render(): Promise<string> {
    const texts = await Promise.all([this.registry, ...this.included].map((r) => r.metrics()));
    return texts.join("\n");
  }

  /** The content type of {@link render}'s text. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** JSON-RPC calls and REST requests by method, tier and HTTP status. */
  readonly requests = new Counter({
    name: "strata_gateway_requests_total",
    help: "JSON-RPC calls and REST requests by method, tier and HTTP status",
    labelNames: ["method", "tier", "status"] as const,
    registers: [this.registry],
  });

  /** Time from a request's arrival to its answer. */
  readonly latency = new Histogram({
    name: "strata_gateway_request_duration_seconds",
    help: "Time from a request's arrival to its answer, by method (batch for batches)",
    labelNames: ["method", "transport"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  /** Rate-limiter decisions: allowed, refused, failed_open, failed_closed. */
  readonly limiterDecisions = new Counter({
    name: "strata_gateway_limiter_decisions_total",
    help: "Rate-limiter decisions by tier and outcome (allowed, refused, failed_open, failed_closed)",
    labelNames: ["tier", "decision"] as const,
    registers: [this.registry],
  });

  /** Requests refused for an unknown or revoked API key. */
  readonly invalidKeys = new Counter({
    name: "strata_gateway_invalid_api_keys_total",
    help: "Requests refused for an unknown or revoked API key",
    registers: [this.registry],
  });

  /** 1 while an upstream passes its health check. */
  readonly upstreamUp = new Gauge({
    name: "strata_gateway_upstream_up",
    help: "1 while the upstream node answers its health check",
    labelNames: ["upstream"] as const,
    registers: [this.registry],
  });

  /** The latest head block number each upstream reported. */
  readonly upstreamHead = new Gauge({
    name: "strata_gateway_upstream_head_block",
    help: "Latest head block number reported by the upstream",
    labelNames: ["upstream"] as const,
    registers: [this.registry],
  });

  /** Blocks each upstream trails the best head by. */
  readonly upstreamLag = new Gauge({
    name: "strata_gateway_upstream_lag_blocks",
    help: "Blocks the upstream trails the best known head by",
    labelNames: ["upstream"] as const,
    registers: [this.registry],
  });

  /** Calls moved to another upstream after one failed. */
  readonly failovers = new Counter({
    name: "strata_gateway_upstream_failovers_total",
    help: "Calls retried on another upstream after a transport failure",
    registers: [this.registry],
  });

  /** Calls answered from the head cache without an upstream round trip. */
  readonly headCacheAnswers = new Counter({
    name: "strata_gateway_head_cache_answers_total",
    help: "Head-dependent reads (eth_blockNumber, eth_chainId, ...) answered from the newHeads-fed cache",
    registers: [this.registry],
  });

  /** 1 while the head cache's newHeads subscription is live and serving answers. */
  readonly headCacheLive = new Gauge({
    name: "strata_gateway_head_cache_live",
    help: "1 while the head cache's newHeads subscription is live",
    registers: [this.registry],
  });

  /** Open client WebSocket connections. */
  readonly wsConnections = new Gauge({
    name: "strata_gateway_ws_connections",
    help: "Open client WebSocket connections",
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Reports the size and bound of each of `source`'s structures at every scrape; sources add up
   * (the gateway's own, and an indexer's running in the same process).
   */
  watch(source: () => readonly GrowingStructure[]): void {
    this.structureSources.push(source);
    if (this.structureSources.length > 1) return;
    const structures = () => this.structureSources.flatMap((s) => s());
    const labelNames = ["cache", "unit"] as const;
    new Gauge({
      name: "strata_cache_size",
      help: "Current size of a cache, map or queue that can grow (entries or bytes, see unit)",
      labelNames,
      registers: [this.registry],
      collect() {
        for (const s of structures()) this.set({ cache: s.name, unit: s.unit }, s.size());
      },
    });
    new Gauge({
      name: "strata_cache_bound",
      help: "The size a cache, map or queue never exceeds (entries or bytes, see unit)",
      labelNames,
      registers: [this.registry],
      collect() {
        for (const s of structures()) this.set({ cache: s.name, unit: s.unit }, s.bound);
      },
    });
  }

  /** Counts one call or REST request (`method` is bounded by {@link methodLabel}). */
  countRequest(method: string, tier: string, status: number): void {
    const label = this.methodLabel(method);
    boundChild(this.requestChildren, `${label}\n${tier}\n${status}`, () =>
      this.requests.labels(label, tier, String(status)),
    ).inc();
  }

  /** Records how long a request took (`method` is bounded by {@link methodLabel}). */
  observeLatency(method: string, transport: "http" | "ws", seconds: number): void {
    const label = this.methodLabel(method);
    boundChild(this.latencyChildren, `${label}\n${transport}`, () =>
      this.latency.labels(label, transport),
    ).observe(seconds);
  }

  /** Counts one rate-limiter decision of `tier`. */
  countLimiterDecision(
    tier: string,
    decision: "allowed" | "refused" | "failed_open" | "failed_closed",
  ): void {
    boundChild(this.decisionChildren, `${tier}\n${decision}`, () =>
      this.limiterDecisions.labels(tier, decision),
    ).inc();
  }

  /** A method name safe to use as a label value. */
  methodLabel(method: string): string {
    if (this.methods.has(method)) return method;
    if (this.methods.size >= MAX_METHOD_LABELS || !/^[A-Za-z0-9_ /.-]{1,64}$/.test(method)) return "other";
    this.methods.add(method);
    return method;
  }
}
