import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import {
  DAY_MS,
  type LimitCharge,
  type LimitOutcome,
  msUntilUtcMidnight,
  type RateLimiter,
  utcDay,
} from "./rate-limiter.js";

/**
 * One atomic round trip per request. KEYS: the subject's window (sorted set of call times) and its
 * day counter. ARGV: now (ms), per-second limit, per-day limit (0 = unlimited), cost, a unique
 * member prefix, the day counter's TTL and the window key's idle TTL.
 * Returns {allowed, refusedBy (0 none, 1 second, 2 day), secondUsed, dayUsed, secondResetMs}.
 */
const CONSUME_LUA = `
local now = tonumber(ARGV[1])
local perSecond = tonumber(ARGV[2])
local perDay = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])
local used = 0
if perSecond > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 1000)
  used = redis.call('ZCARD', KEYS[1])
end
local day = tonumber(redis.call('GET', KEYS[2]) or '0')
if perSecond > 0 and used + cost > perSecond then
  local index = used + cost - perSecond - 1
  local blocking = redis.call('ZRANGE', KEYS[1], index, index, 'WITHSCORES')
  local reset = 1000
  if blocking[2] then reset = tonumber(blocking[2]) + 1000 - now end
  return {0, 1, used, day, reset}
end
if perDay > 0 and day + cost > perDay then
  return {0, 2, used, day, 0}
end
local reset = 0
if perSecond > 0 then
  local members = {}
  for i = 1, cost do
    members[#members + 1] = now
    members[#members + 1] = ARGV[5] .. ':' .. i
  end
  redis.call('ZADD', KEYS[1], unpack(members))
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[7]))
  used = used + cost
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  reset = tonumber(first[2]) + 1000 - now
end
day = redis.call('INCRBY', KEYS[2], cost)
if day == cost then redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[6])) end
return {1, 0, used, day, reset}
`;

/** A window key idle this long is dropped by Redis (the script prunes old entries itself). */
const WINDOW_IDLE_TTL_MS = 60_000;

type ConsumeReply = [number, number, number, number, number];

interface LimiterRedis extends Redis {
  strataConsume(windowKey: string, dayKey: string, ...args: (string | number)[]): Promise<ConsumeReply>;
}

/** Unlimited charges of one subject and day, counted together. */
interface PendingUnlimited {
  readonly charge: LimitCharge;
  cost: number;
  readonly callers: { resolve(outcome: LimitOutcome): void; reject(error: unknown): void }[];
}

/** How long deferred charges (answered calls of unlimited tiers) wait to be counted together. */
const DEFERRED_COUNT_MS = 50;

/**
 * Counters in Redis, shared by every gateway instance: each request is one EVALSHA of a Lua script,
 * atomic across instances (concurrent requests' scripts are pipelined together). Call times come from the gateway's clock (kept in sync by NTP in a fleet).
 * Commands fail fast while Redis is unreachable (no offline queue), so the caller can fail open.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly kind = "redis";
  private readonly redis: LimiterRedis;
  private readonly instance = randomBytes(6).toString("hex");
  private sequence = 0;
  /** Unlimited charges waiting for the next turn of the event loop, by subject and day. */
  private readonly unlimited = new Map<string, PendingUnlimited>();
  /** Deferred unlimited charges, counted together every {@link DEFERRED_COUNT_MS}. */
  private readonly deferred = new Map<string, PendingUnlimited>();
  private deferredTimer: NodeJS.Timeout | undefined;

  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    this.redis = new Redis(url, {
      enableOfflineQueue: false,
      // Scripts issued in the same tick share one write: many requests, one syscall.
      enableAutoPipelining: true,
      maxRetriesPerRequest: 0,
      commandTimeout: 1_000,
      lazyConnect: false,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    }) as LimiterRedis;
    this.redis.on("error", () => {
      // Connection errors surface as rejected commands; the caller decides and logs.
    });
    this.redis.defineCommand("strataConsume", { numberOfKeys: 2, lua: CONSUME_LUA });
  }

  /** Resolves once connected; rejects at the first connection error or after `timeoutMs`. */
  ready(timeoutMs = 5_000): Promise<void> {
    if (this.redis.status === "ready") return Promise.resolve();
    return new Promise((resolve, reject) => {
      const settle = (error?: Error) => {
        clearTimeout(timer);
        this.redis.off("ready", onReady);
        this.redis.off("error", onError);
        if (error === undefined) resolve();
        else reject(error);
      };
      const onReady = () => settle();
      const onError = (error: Error) => settle(error);
      const timer = setTimeout(() => settle(new Error("redis did not become ready")), timeoutMs);
      this.redis.once("ready", onReady);
      this.redis.once("error", onError);
    });
  }

  /**
   * Charges the subject in one atomic script call. Charges without any limit (both 0: they are only
   * counted, never refused) that arrive in the same turn of the event loop for the same subject and
   * day are counted together by one call with their summed cost.
   */
  consume(charge: LimitCharge): Promise<LimitOutcome> {
    if (charge.perSecond !== 0 || charge.perDay !== 0) return this.consumeNow(charge);
    const pending = charge.deferred === true ? this.deferred : this.unlimited;
    const group = `${charge.subject}\n${utcDay(charge.now)}`;
    return new Promise((resolve, reject) => {
      const waiting = pending.get(group);
      if (waiting !== undefined) {
        waiting.cost += charge.cost;
        waiting.callers.push({ resolve, reject });
        return;
      }
      pending.set(group, { charge, cost: charge.cost, callers: [{ resolve, reject }] });
      if (pending.size > 1) return;
      if (pending === this.unlimited) setImmediate(() => this.flush(this.unlimited));
      else this.deferredTimer = setTimeout(() => this.flushDeferred(), DEFERRED_COUNT_MS).unref();
    });
  }

  private flushDeferred(): Promise<unknown> {
    clearTimeout(this.deferredTimer);
    this.deferredTimer = undefined;
    return this.flush(this.deferred);
  }

  /** Counts each group of unlimited charges waiting in `pending` with one script call. */
  private flush(pending: Map<string, PendingUnlimited>): Promise<unknown> {
    const groups = [...pending.values()];
    pending.clear();
    return Promise.allSettled(
      groups.map((group) =>
        this.consumeNow({ ...group.charge, cost: group.cost }).then(
          (outcome) => {
            for (const caller of group.callers) caller.resolve(outcome);
          },
          (error: unknown) => {
            for (const caller of group.callers) caller.reject(error);
          },
        ),
      ),
    );
  }

  private async consumeNow(charge: LimitCharge): Promise<LimitOutcome> {
    const day = utcDay(charge.now);
    const reply = await this.redis.strataConsume(
      `${this.prefix}:s:${charge.subject}`,
      `${this.prefix}:d:${charge.subject}:${day}`,
      charge.now,
      charge.perSecond,
      charge.perDay,
      charge.cost,
      `${this.instance}:${this.sequence++}`,
      msUntilUtcMidnight(charge.now) + DAY_MS / 24,
      WINDOW_IDLE_TTL_MS,
    );
    const [allowed, refusedBy, secondUsed, dayUsed, secondResetMs] = reply;
    return {
      allowed: allowed === 1,
      refusedBy: refusedBy === 1 ? "second" : refusedBy === 2 ? "day" : undefined,
      secondUsed,
      dayUsed,
      secondResetMs,
    };
  }

  /** Rejects unless Redis answers PING. */
  async ping(): Promise<void> {
    await this.redis.ping();
  }

  /** Counts the deferred charges still waiting, then closes the connection. */
  async close(): Promise<void> {
    await this.flushDeferred();
    this.redis.disconnect();
  }
}
