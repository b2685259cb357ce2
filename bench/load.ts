import autocannon from "autocannon";

export interface HttpLoadOptions {
  url: string;
  /** Fixed JSON-RPC request body sent on every request. */
  body: string;
  /** When set, the body of each request (overrides `body`): for loads that must not repeat a request. */
  bodyFor?: (n: number) => string;
  /** Cheap per-response check; responses failing it count as errors (mismatches). */
  verifyBody: (body: string) => boolean;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

export interface HttpLoadResult {
  /** Successful (2xx and verified) responses per second over the measured window. */
  requestsPerSecond: number;
  okRequests: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  meanMs: number;
  /** connection errors + timeouts + non-2xx + body mismatches */
  errors: number;
  breakdown: { connectionErrors: number; timeouts: number; non2xx: number; mismatches: number };
  durationSeconds: number;
}

interface RunOutput {
  result: autocannon.Result;
  latencies: Float64Array;
  count2xx: number;
}

function runOnce(options: autocannon.Options, recordLatencies: boolean): Promise<RunOutput> {
  // Latencies are collected here (not from autocannon's histogram, which has 1 ms
  // resolution) so sub-millisecond differences between targets stay visible.
  let latencies = new Float64Array(recordLatencies ? 1 << 16 : 0);
  let count2xx = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (err, result) => {
      if (err) reject(err);
      else resolve({ result, latencies: latencies.subarray(0, count2xx), count2xx });
    });
    instance.on("response", (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
      if (statusCode < 200 || statusCode >= 300) return;
      if (recordLatencies) {
        if (count2xx === latencies.length) {
          const grown = new Float64Array(latencies.length * 2);
          grown.set(latencies);
          latencies = grown;
        }
        latencies[count2xx] = responseTime;
      }
      count2xx++;
    });
  });
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

/** Warm up, then measure a fixed-body POST load with autocannon (keep-alive, pipelining 1). */
export async function runHttpLoad(options: HttpLoadOptions): Promise<HttpLoadResult> {
  const base: autocannon.Options = {
    url: options.url,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: options.body,
    connections: options.connections,
    pipelining: 1,
    timeout: 10,
    verifyBody: options.verifyBody,
  };
  const { bodyFor } = options;
  if (bodyFor) {
    let n = 0;
    base.requests = [{ method: "POST", setupRequest: (request) => ({ ...request, body: bodyFor(n++) }) }];
  }
  if (options.warmupSeconds > 0) {
    const warm = await runOnce({ ...base, duration: options.warmupSeconds }, false);
    const warmErrors = warm.result.errors + warm.result.non2xx + warm.result.mismatches;
    if (warmErrors > 0) console.warn(`    ! warm-up saw ${warmErrors} errors`);
  }
  const { result, latencies, count2xx } = await runOnce({ ...base, duration: options.durationSeconds }, true);
  latencies.sort();
  let sum = 0;
  for (const v of latencies) sum += v;
  const ok = Math.max(0, count2xx - result.mismatches);
  const breakdown = {
    connectionErrors: result.errors - result.timeouts,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    mismatches: result.mismatches,
  };
  return {
    requestsPerSecond: ok / result.duration,
    okRequests: ok,
    p50Ms: percentile(latencies, 50),
    p90Ms: percentile(latencies, 90),
    p99Ms: percentile(latencies, 99),
    meanMs: latencies.length > 0 ? sum / latencies.length : Number.NaN,
    errors: result.errors + result.non2xx + result.mismatches,
    breakdown,
    durationSeconds: result.duration,
  };
}

/** The error breakdown of a load run as a note (empty when there were no errors). */
export function errorNote(load: HttpLoadResult): string[] {
  if (load.errors === 0) return [];
  return [
    Object.entries(load.breakdown)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${n} ${k}`)
      .join(", "),
  ];
}

/** A req/s measurement of a load run, with `notes` and `details` of the scenario's own. */
export function loadMeasurement(load: HttpLoadResult, notes: string[], details: Record<string, unknown>) {
  return {
    unit: "req/s" as const,
    throughput: load.requestsPerSecond,
    p50Ms: load.p50Ms,
    p99Ms: load.p99Ms,
    errors: load.errors,
    notes,
    details: {
      ...details,
      okRequests: load.okRequests,
      measuredSeconds: load.durationSeconds,
      p90Ms: load.p90Ms,
    },
  };
}
