import { createRequire } from "node:module";
import type { Clock } from "../clock.js";
import { KNOWN_NETWORKS } from "../config.js";
import type { ApiKeyStore } from "../keys/key-store.js";
import type { RateLimiter } from "../limits/rate-limiter.js";
import type { UpstreamPool } from "../upstream/upstream-pool.js";

const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

/** The body of GET /health. */
export interface HealthReport {
  readonly status: "ok" | "degraded" | "down";
  readonly chainId: number | null;
  readonly blockNumber: number | null;
  readonly headAgeSeconds: number | null;
  readonly version: string;
  readonly checks: {
    readonly node: "ok" | "stale" | "down";
    readonly database: "ok" | "down" | "none";
    readonly cache: "ok" | "down" | "memory";
  };
  /** Healthy and configured upstream nodes (their addresses stay private). */
  readonly upstreams: { readonly healthy: number; readonly total: number };
}

/** What the health report reads. */
export interface HealthSources {
  readonly pool: UpstreamPool;
  readonly keys: ApiKeyStore | undefined;
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  /** Seconds after which the head is stale; undefined: ten block times of a known network, else off. */
  readonly maxHeadAgeSeconds: number | undefined;
  /** The chain id the upstreams reported, once known. */
  chainId(): number | undefined;
}

/**
 * GET /health: `ok` (200) while a node is reachable and its head is fresh; `down` (503) when no node
 * answers; `degraded` (503) when the freshest head is older than the limit. The database and the
 * counter store are reported but do not fail the check (keyless traffic still flows without them).
 */
export async function healthReport(
  sources: HealthSources,
  dependencies: Promise<DependencyChecks> = checkDependencies(sources),
): Promise<HealthReport> {
  const statuses = sources.pool.status();
  const healthy = statuses.filter((s) => s.healthy && s.head !== undefined);
  const best = healthy.reduce<(typeof healthy)[number] | undefined>(
    (a, b) => (a === undefined || (b.head ?? 0) > (a.head ?? 0) ? b : a),
    undefined,
  );
  const chainId = sources.chainId() ?? null;
  const headAge =
    best?.headTimestamp === undefined
      ? null
      : Math.max(0, Math.floor(sources.clock() / 1000) - best.headTimestamp);
  const known =
    chainId === null ? undefined : (KNOWN_NETWORKS as Record<number, { blockTimeSeconds: number }>)[chainId];
  const maxAge = sources.maxHeadAgeSeconds ?? (known ? known.blockTimeSeconds * 10 : 0);
  const node =
    best === undefined ? "down" : maxAge > 0 && headAge !== null && headAge > maxAge ? "stale" : "ok";
  const { database, cache } = await dependencies;
  return {
    status: node === "ok" ? "ok" : node === "down" ? "down" : "degraded",
    chainId,
    blockNumber: best?.head ?? null,
    headAgeSeconds: headAge,
    version,
    checks: { node, database, cache },
    upstreams: { healthy: statuses.filter((s) => s.healthy).length, total: statuses.length },
  };
}

/** The checks of the database and the counter store, which cost a round trip each. */
export interface DependencyChecks {
  readonly database: HealthReport["checks"]["database"];
  readonly cache: HealthReport["checks"]["cache"];
}

/** Pings the key database and the counter store. */
async function checkDependencies(sources: HealthSources): Promise<DependencyChecks> {
  const [database, cache] = await Promise.all([
    sources.keys === undefined
      ? ("none" as const)
      : sources.keys.ping().then(
          () => "ok" as const,
          () => "down" as const,
        ),
    sources.limiter.kind === "memory"
      ? ("memory" as const)
      : sources.limiter.ping().then(
          () => "ok" as const,
          () => "down" as const,
        ),
  ]);
  return { database, cache };
}

/**
 * {@link healthReport} with the database and Redis pings reused for `ttlMs`: every request within
 * that time (and every one arriving while they run) shares one ping of each, so a flood of
 * GET /health costs no more than one request. The node's part comes from the upstream pool's own
 * checks (in memory) and is fresh on every request.
 */
export class CachedHealth {
  #made = Number.NEGATIVE_INFINITY;
  #checks: Promise<DependencyChecks> | undefined;

  constructor(
    private readonly sources: HealthSources,
    private readonly ttlMs: number,
  ) {}

  /** The current report; the dependency pings are made afresh once the last ones are older than the TTL. */
  report(): Promise<HealthReport> {
    const now = performance.now();
    if (this.#checks === undefined || now - this.#made >= this.ttlMs) {
      this.#made = now;
      this.#checks = checkDependencies(this.sources);
    }
    return healthReport(this.sources, this.#checks);
  }
}
