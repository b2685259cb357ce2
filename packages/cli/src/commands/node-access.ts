import { openDatabase } from "@strata/db";
import {
  AccessControl,
  ApiKeyStore,
  type Clock,
  GATEWAY_DEFAULTS,
  keyDatabaseDir,
  MemoryRateLimiter,
  type RateLimiter,
  RedisRateLimiter,
  systemClock,
} from "@strata/gateway";
import type { RequestGate } from "@strata/node";
import type { FlagValues } from "../flags.js";
import { UsageError } from "../usage-error.js";

/** Where `strata node --api-keys` finds its keys and keeps its counters. */
export interface NodeAccessSettings {
  /** PostgreSQL URL of the key database; without it, embedded PGlite under `keysDataDir`. */
  readonly databaseUrl?: string;
  /** Directory of the embedded key database (the gateway's data directory). */
  readonly keysDataDir: string;
  /** Redis URL of the rate-limit counters; without it, process memory. */
  readonly redisUrl?: string;
  /** Prefix of the Redis counter keys; the gateway's, so a key has one limit on both ports. */
  readonly redisKeyPrefix?: string;
  /** `open`: requests go through uncounted while Redis is unreachable; `closed`: they get 503. */
  readonly limiterFailure?: "open" | "closed";
}

/**
 * The `--api-keys` settings from parsed `strata node` flags (URLs also from `DATABASE_URL` and
 * `REDIS_URL` in `env`); undefined when keys are off.
 */
export function nodeAccessFromFlags(
  values: FlagValues,
  env: NodeJS.ProcessEnv = process.env,
): NodeAccessSettings | undefined {
  const related = ["database-url", "redis-url", "keys-datadir", "limiter-failure"].filter(
    (name) => values[name] !== undefined,
  );
  if (values["api-keys"] !== true) {
    if (related.length > 0) throw new UsageError(`--${related[0]} applies only with --api-keys`);
    return undefined;
  }
  const failure = values["limiter-failure"];
  if (failure !== undefined && failure !== "open" && failure !== "closed") {
    throw new UsageError(`--limiter-failure: expected open | closed, got "${String(failure)}"`);
  }
  const databaseUrl = (values["database-url"] as string | undefined) ?? env.DATABASE_URL;
  const redisUrl = (values["redis-url"] as string | undefined) ?? env.REDIS_URL;
  return {
    keysDataDir: (values["keys-datadir"] as string | undefined) ?? ".strata/gateway",
    ...(databaseUrl === undefined || databaseUrl === "" ? {} : { databaseUrl }),
    ...(redisUrl === undefined || redisUrl === "" ? {} : { redisUrl }),
    ...(failure === undefined ? {} : { limiterFailure: failure }),
  };
}

/** A gate for the node's port and what it holds open. */
export interface NodeAccess {
  readonly gate: RequestGate;
  /** `memory` or `redis`: where the counters live. */
  readonly limiterKind: string;
  /** Closes the key database and the counter store. */
  close(): Promise<void>;
}

/**
 * Opens the gateway's key store and limiter for a node's own port: the same keys, tiers, limits and
 * answers as `strata gateway` (401 for an invalid key, 429 with -32005 over a limit). `warn` hears of
 * an unreachable Redis; `clock` dates the calls (the system clock but in tests).
 */
export async function openNodeAccess(
  settings: NodeAccessSettings,
  warn: (error: unknown, message: string) => void,
  clock: Clock = systemClock,
): Promise<NodeAccess> {
  const database = await openDatabase(
    settings.databaseUrl,
    settings.databaseUrl === undefined ? keyDatabaseDir(settings.keysDataDir) : undefined,
  );
  const keys = new ApiKeyStore(database, GATEWAY_DEFAULTS.keyCacheSeconds, clock);
  await keys.migrate().catch(async (error: unknown) => {
    await database.close();
    throw error;
  });
  const limiter: RateLimiter =
    settings.redisUrl === undefined
      ? new MemoryRateLimiter(clock)
      : new RedisRateLimiter(settings.redisUrl, settings.redisKeyPrefix ?? GATEWAY_DEFAULTS.redisKeyPrefix);
  if (limiter instanceof RedisRateLimiter)
    await limiter.ready().catch((error: unknown) => warn(error, "redis is not reachable yet"));
  const failure = settings.limiterFailure ?? GATEWAY_DEFAULTS.limiterFailure;
  const access = new AccessControl({
    keys,
    limiter,
    onLimiterFailure: failure,
    clock,
    warn: (error) =>
      warn(
        error,
        `rate limiter unreachable: requests are ${failure === "open" ? "let through uncounted" : "refused"}`,
      ),
  });
  const gate: RequestGate = {
    authorize: (caller, cost) => access.authorize(caller, cost),
    structures: () => access.structures(),
  };
  return {
    gate,
    limiterKind: limiter.kind,
    async close() {
      await limiter.close();
      await database.close();
    },
  };
}
