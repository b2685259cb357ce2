import { z } from "zod";

/** The chains the gateway knows by id: network name, native currency and block time for `api_getChainInfo`. */
export const KNOWN_NETWORKS = {
  1337: { name: "dev", blockTimeSeconds: 0 },
  13370: { name: "mainnet", blockTimeSeconds: 2 },
} as const satisfies Record<number, { name: string; blockTimeSeconds: number }>;

/** Defaults of every gateway setting (DECISIONS.md "Limits", "API keys, tiers and rate limits"). */
export const GATEWAY_DEFAULTS = {
  addr: "127.0.0.1",
  port: 4000,
  corsOrigin: "*",
  maxBodyBytes: 5 * 1024 * 1024,
  maxBatch: 1_000,
  /** Largest JSON-RPC answer: a batch stops at it (-32005 for the rest); an upstream answer beyond it is cut off. */
  maxResponseBytes: 25 * 1024 * 1024,
  maxWsMessageBytes: 15 * 1024 * 1024,
  maxWsQueuedBytes: 8 * 1024 * 1024,
  maxWsConnections: 10_000,
  /** Subscriptions one client WebSocket holds at most (the node's own default cap). */
  maxSubscriptionsPerConnection: 1_024,
  /** Milliseconds between upstream health checks. */
  healthIntervalMs: 1_000,
  /** Blocks an upstream may trail the best head and still be routed to. */
  maxLagBlocks: 0,
  /** Milliseconds before an upstream request is abandoned. */
  upstreamTimeoutMs: 30_000,
  /** Redis unreachable: `open` lets requests through (with a warning and a metric), `closed` refuses them. */
  limiterFailure: "open" as "open" | "closed",
  redisKeyPrefix: "strata:rl",
  /** Seconds an API key lookup is cached in process (a revocation elsewhere takes effect within this time). */
  keyCacheSeconds: 5,
  /**
   * Proxies in front of the gateway that append to `X-Forwarded-For` (express's `trust proxy` N): the
   * client IP is the entry this many places from the right. 0 uses the socket address.
   */
  trustProxy: 0,
  /** WebSocket connections one client IP may hold at once. */
  maxWsConnectionsPerIp: 64,
  /** Polling filters (`eth_newFilter` and friends) one caller (key, or IP without one) holds at once. */
  maxFiltersPerCaller: 32,
  /** Milliseconds between WebSocket pings; a client that has not answered the previous one is dropped. */
  wsPingIntervalMs: 30_000,
  /** Milliseconds a WebSocket without subscriptions may stay silent before it is closed. */
  wsIdleTimeoutMs: 300_000,
  /** Listen address of the separate /metrics port (`metricsPort`). */
  metricsAddr: "127.0.0.1",
  /** Seconds a /health report is reused: its checks ping the node, the database and Redis. */
  healthCacheSeconds: 1,
  logLevel: "info",
} as const;

/** Everything a gateway needs to run; built by {@link createGatewayConfig}. */
export interface GatewayConfig {
  /** JSON-RPC URLs of the nodes behind the gateway (`http://`), at least one. */
  readonly upstreams: readonly string[];
  readonly addr: string;
  readonly port: number;
  readonly corsOrigin: string;
  readonly maxBodyBytes: number;
  readonly maxBatch: number;
  readonly maxResponseBytes: number;
  readonly maxWsMessageBytes: number;
  readonly maxWsQueuedBytes: number;
  readonly maxWsConnections: number;
  readonly maxSubscriptionsPerConnection: number;
  readonly healthIntervalMs: number;
  readonly maxLagBlocks: number;
  readonly upstreamTimeoutMs: number;
  /** `postgres://` URL of the key database; embedded PGlite under `dataDir` when absent. */
  readonly databaseUrl: string | undefined;
  /** Directory of the embedded database; in memory when absent. */
  readonly dataDir: string | undefined;
  /** Redis URL for shared rate-limit counters; process memory when absent. */
  readonly redisUrl: string | undefined;
  readonly redisKeyPrefix: string;
  readonly limiterFailure: "open" | "closed";
  readonly keyCacheSeconds: number;
  readonly trustProxy: number;
  readonly maxWsConnectionsPerIp: number;
  readonly maxFiltersPerCaller: number;
  readonly wsPingIntervalMs: number;
  readonly wsIdleTimeoutMs: number;
  /** Token required by the admin API (`Authorization: Bearer …`); the admin API is off when absent. */
  readonly adminToken: string | undefined;
  /** Seconds after which a head counts as stale for /health; 0 disables (on-demand block production). */
  readonly maxHeadAgeSeconds: number | undefined;
  /**
   * Port of a separate `GET /metrics` listener on `metricsAddr`; absent: /metrics is served on the
   * public port only while that listens on a loopback address (else nowhere).
   */
  readonly metricsPort: number | undefined;
  readonly metricsAddr: string;
  readonly healthCacheSeconds: number;
  readonly logLevel: string;
}

/** Settings a caller may override; everything else takes {@link GATEWAY_DEFAULTS}. */
export type GatewayConfigOverrides = Partial<GatewayConfig> & Pick<GatewayConfig, "upstreams">;

const schema = z.object({
  upstreams: z.array(z.url({ protocol: /^https?$/ })).min(1, "at least one upstream is required"),
  port: z.number().int().min(0).max(65535),
  maxBodyBytes: z.number().int().positive(),
  maxBatch: z.number().int().positive(),
  maxResponseBytes: z.number().int().positive(),
  healthIntervalMs: z.number().int().positive(),
  maxLagBlocks: z.number().int().min(0),
  upstreamTimeoutMs: z.number().int().positive(),
  databaseUrl: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must start with postgres://")
    .optional(),
  redisUrl: z
    .string()
    .regex(/^rediss?:\/\//, "must start with redis://")
    .optional(),
  limiterFailure: z.enum(["open", "closed"]),
  keyCacheSeconds: z.number().min(0),
  trustProxy: z.number().int().min(0).max(32),
  maxWsConnectionsPerIp: z.number().int().positive(),
  maxFiltersPerCaller: z.number().int().positive(),
  maxSubscriptionsPerConnection: z.number().int().positive(),
  wsPingIntervalMs: z.number().int().positive(),
  wsIdleTimeoutMs: z.number().int().positive(),
  maxHeadAgeSeconds: z.number().min(0).optional(),
  metricsPort: z.number().int().min(0).max(65535).optional(),
  adminToken: z.string().min(32, "must be at least 32 characters").optional(),
  healthCacheSeconds: z.number().min(0),
});

/** A gateway setting that failed validation; the message names the setting. */
export class GatewayConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GatewayConfigError";
  }
}

/** Applies defaults to `overrides` and validates the result. */
export function createGatewayConfig(overrides: GatewayConfigOverrides): GatewayConfig {
  const config: GatewayConfig = {
    ...GATEWAY_DEFAULTS,
    databaseUrl: undefined,
    dataDir: undefined,
    redisUrl: undefined,
    adminToken: undefined,
    maxHeadAgeSeconds: undefined,
    metricsPort: undefined,
    ...withoutUndefined(overrides),
    upstreams: overrides.upstreams.map((u) => u.replace(/\/+$/, "")),
  };
  const result = schema.safeParse(withoutUndefined(config));
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new GatewayConfigError(`${issue.path.join(".")}: ${issue.message}`);
  }
  return config;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
