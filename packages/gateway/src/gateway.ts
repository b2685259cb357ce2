import { type Database, openDatabase } from "@strata/db";
import { type AnyRpcCall, rpcRequest } from "@strata/protocol";
import { isLoopback, type MetricsServer, serveMetricsEndpoint } from "@strata/protocol/metrics-server";
import { type Logger, pino } from "pino";
import type { Registry } from "prom-client";
import { type Clock, systemClock } from "./clock.js";
import { createGatewayConfig, type GatewayConfig, type GatewayConfigOverrides } from "./config.js";
import { ApiKeyStore, keyDatabaseDir } from "./keys/key-store.js";
import { AccessControl } from "./limits/access-control.js";
import { MemoryRateLimiter } from "./limits/memory-limiter.js";
import type { RateLimiter } from "./limits/rate-limiter.js";
import { RedisRateLimiter } from "./limits/redis-limiter.js";
import { GatewayMetrics } from "./metrics.js";
import { createRestApi } from "./rest/index.js";
import { backtests } from "./rest/routes/modules.js";
import { FilterQuota, MAX_FILTERS } from "./rpc/filter-quota.js";
import { HeadCache } from "./rpc/head-cache.js";
import { RpcProxy } from "./rpc/rpc-proxy.js";
import { AdminApi } from "./server/admin-api.js";
import { callerOf } from "./server/caller.js";
import { GatewayHttpServer } from "./server/http-server.js";
import { GatewayWsServer } from "./server/ws-server.js";
import { UpstreamPool } from "./upstream/upstream-pool.js";
import { callUpstream, unwrap } from "./upstream/upstream-rpc.js";

/** A running gateway. */
export interface Gateway {
  readonly config: GatewayConfig;
  /** `http://addr:port` once started. */
  readonly url: string;
  /** `ws://addr:port` once started. */
  readonly wsUrl: string;
  /** Where `GET /metrics` is served once started (`null`: off). */
  readonly metricsUrl: string | null;
  readonly keys: ApiKeyStore;
  readonly metrics: GatewayMetrics;
  /** The cache of head-dependent reads (`heads.live` while its subscription serves answers). */
  readonly heads: HeadCache;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Things a caller (mostly a test) may supply instead of the defaults. */
export interface GatewayDependencies {
  /** Time source of the limits and /health (default: the system clock). */
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** An already open key database (default: opened from the config). */
  readonly database?: Database;
  /** Metrics of services in the same process, served on the gateway's GET /metrics too. */
  readonly extraMetrics?: readonly Registry[];
}

/**
 * Composition root of the API gateway: key database, rate limiter (Redis or memory), upstream pool,
 * JSON-RPC proxy, HTTP and WebSocket servers. `start()` opens the database (migrating the key table),
 * checks the upstreams once and listens; `stop()` closes everything it opened.
 */
export async function createGateway(
  overrides: GatewayConfigOverrides,
  dependencies: GatewayDependencies = {},
): Promise<Gateway> {
  const config = createGatewayConfig(overrides);
  const clock = dependencies.clock ?? systemClock;
  const log =
    dependencies.logger ??
    pino({ level: config.logLevel, base: { service: "strata-gateway" } }, pino.destination(2));
  const ownsDatabase = dependencies.database === undefined;
  const database =
    dependencies.database ??
    (await openDatabase(
      config.databaseUrl,
      config.dataDir === undefined ? undefined : keyDatabaseDir(config.dataDir),
    ));
  const keys = new ApiKeyStore(database, config.keyCacheSeconds, clock);
  const metrics = new GatewayMetrics();
  for (const registry of dependencies.extraMetrics ?? []) metrics.include(registry);
  const limiter: RateLimiter =
    config.redisUrl === undefined
      ? new MemoryRateLimiter(clock)
      : new RedisRateLimiter(config.redisUrl, config.redisKeyPrefix);
  const pool = new UpstreamPool(config.upstreams, {
    intervalMs: config.healthIntervalMs,
    maxLagBlocks: config.maxLagBlocks,
    timeoutMs: config.upstreamTimeoutMs,
    maxResponseBytes: config.maxResponseBytes,
    log: log.child({ module: "upstream" }),
    metrics,
  });
  const access = new AccessControl({
    keys,
    limiter,
    onLimiterFailure: config.limiterFailure,
    clock,
    metrics,
    warn: (error) =>
      log.warn(
        { err: error },
        `rate limiter unreachable: requests are ${config.limiterFailure === "open" ? "let through uncounted" : "refused"}`,
      ),
  });
  const heads = new HeadCache(pool, log.child({ module: "head-cache" }), metrics);
  const proxy = new RpcProxy(pool, log.child({ module: "proxy" }), heads, config.maxResponseBytes);
  const filters = new FilterQuota(config.maxFiltersPerCaller, clock);
  let chainId: number | undefined;
  const admin =
    config.adminToken === undefined
      ? undefined
      : new AdminApi(keys, config.adminToken, (req) => callerOf(req, config.trustProxy).ip, clock);
  const http = new GatewayHttpServer(config, {
    access,
    proxy,
    filters,
    admin,
    rest: createRestApi({
      database: config.databaseUrl !== undefined || !ownsDatabase ? database : undefined,
      // The REST routes name methods at run time; their results are typed where they are read.
      rpc: async (method, params) =>
        unwrap((await callUpstream(pool, [{ method, params } as AnyRpcCall]))[0]),
    }),
    health: {
      pool,
      keys,
      limiter,
      clock,
      maxHeadAgeSeconds: config.maxHeadAgeSeconds,
      chainId: () => chainId,
    },
    metrics,
    log: log.child({ module: "http" }),
  });
  const ws = new GatewayWsServer(http.server, config, {
    access,
    proxy,
    filters,
    pool,
    metrics,
    log: log.child({ module: "ws" }),
  });
  metrics.watch(() => [
    ...access.structures(),
    ...ws.structures(),
    { name: "head_answers", unit: "entries", ...heads.answers },
    { name: "filters", unit: "entries", bound: MAX_FILTERS, size: () => filters.size },
    { name: "backtests", unit: "entries", ...backtests.held },
    ...(admin === undefined
      ? []
      : [{ name: "admin_failures", unit: "entries" as const, ...admin.failingClients }]),
  ]);
  let url = "";
  let metricsListener: MetricsServer | undefined;

  const learnChainId = async () => {
    if (chainId !== undefined || !pool.anyHealthy) return;
    const [answer] = await callUpstream(pool, [rpcRequest("eth_chainId")]).catch(() => [undefined]);
    if (typeof answer === "string") chainId = Number.parseInt(answer, 16);
  };

  return {
    config,
    keys,
    metrics,
    heads,
    get url() {
      return url;
    },
    get wsUrl() {
      return url.replace(/^http/, "ws");
    },
    get metricsUrl() {
      if (metricsListener !== undefined) return metricsListener.url;
      return url !== "" && isLoopback(config.addr) && config.metricsPort === undefined
        ? `${url}/metrics`
        : null;
    },
    async start() {
      await keys.migrate();
      if (limiter instanceof RedisRateLimiter) {
        await limiter
          .ready()
          .catch((error: unknown) => log.warn({ err: error }, "redis is not reachable yet"));
      }
      await pool.start();
      await learnChainId();
      pool.onCheck(learnChainId);
      heads.start();
      pool.onCheck(() => heads.recheck());
      url = await http.listen();
      if (config.metricsPort !== undefined) {
        metricsListener = await serveMetricsEndpoint(metrics, config.metricsAddr, config.metricsPort);
      } else if (!isLoopback(config.addr)) {
        log.warn("metrics are off: the public port is not loopback and no metrics port is set");
      }
      log.info({ url, upstreams: config.upstreams.length, limiter: limiter.kind }, "gateway listening");
    },
    async stop() {
      heads.stop();
      await ws.close();
      await http.close();
      await metricsListener?.close();
      pool.stop();
      await limiter.close();
      if (ownsDatabase) await database.close();
    },
  };
}
