import { afterAll, describe, expect, it } from "vitest";
import { ManualClock, REDIS_URL, redisPrefix } from "../e2e/helpers.js";
import { AccessControl } from "./access-control.js";
import { MemoryRateLimiter } from "./memory-limiter.js";
import type { RateLimiter } from "./rate-limiter.js";
import { RedisRateLimiter } from "./redis-limiter.js";

const limiters: RateLimiter[] = [];
afterAll(async () => {
  for (const limiter of limiters) await limiter.close();
});

async function redisLimiter(): Promise<RedisRateLimiter> {
  const limiter = new RedisRateLimiter(REDIS_URL, redisPrefix());
  await limiter.ready();
  return limiter;
}

const kinds: [string, () => Promise<RateLimiter>][] = [
  ["memory", async () => new MemoryRateLimiter()],
  ["redis", redisLimiter],
];

describe.each(kinds)("daily quota (%s counters)", (_kind, make) => {
  it("refuses once the day is used up and resets at 00:00 UTC, not 24 hours after first use", async () => {
    const limiter = await make();
    limiters.push(limiter);
    const clock = new ManualClock(Date.UTC(2026, 2, 1, 23, 59, 0));
    const charge = (cost: number) =>
      limiter.consume({ subject: "ip:198.51.100.7", perSecond: 0, perDay: 5, cost, now: clock.now });
    expect((await charge(3)).allowed).toBe(true);
    expect(await charge(3)).toMatchObject({ allowed: false, refusedBy: "day", dayUsed: 3 });
    expect(await charge(2)).toMatchObject({ allowed: true, dayUsed: 5 });
    clock.now = Date.UTC(2026, 2, 1, 23, 59, 59, 999);
    expect((await charge(1)).refusedBy).toBe("day");
    clock.now = Date.UTC(2026, 2, 2, 0, 0, 0, 0);
    expect(await charge(1)).toMatchObject({ allowed: true, dayUsed: 1 });
  });

  it("keeps a sliding one-second window: room returns as the oldest calls age out", async () => {
    const limiter = await make();
    limiters.push(limiter);
    const clock = new ManualClock(Date.UTC(2026, 2, 1, 12, 0, 0));
    const charge = () =>
      limiter.consume({ subject: "key:k1", perSecond: 3, perDay: 0, cost: 1, now: clock.now });
    expect((await charge()).allowed).toBe(true);
    clock.advance(400);
    expect((await charge()).allowed).toBe(true);
    expect((await charge()).allowed).toBe(true);
    clock.advance(100);
    expect(await charge()).toMatchObject({ allowed: false, refusedBy: "second", secondResetMs: 500 });
    clock.advance(500);
    expect((await charge()).allowed).toBe(true);
    expect((await charge()).allowed).toBe(false);
  });
});

describe("the Free tier's daily quota through the access check", () => {
  it("refuses call 100,001 of a UTC day with period day and the time to midnight, then resets", async () => {
    const limiter = await redisLimiter();
    limiters.push(limiter);
    const clock = new ManualClock(Date.UTC(2026, 5, 30, 20, 0, 0));
    const access = new AccessControl({
      keys: undefined,
      limiter,
      onLimiterFailure: "closed",
      clock: clock.read,
    });
    const caller = { apiKey: undefined, ip: "203.0.113.9" };
    // 10,000 seconds of full 10-call batches use up the 100,000 calls of the day.
    for (let second = 0; second < 10_000; second++) {
      const decision = await access.authorize(caller, 10);
      if (!decision.allowed) throw new Error(`refused at second ${second}`);
      clock.advance(1_000);
    }
    clock.now = Date.UTC(2026, 5, 30, 23, 59, 0);
    const refused = await access.authorize(caller, 1);
    expect(refused.allowed).toBe(false);
    if (refused.allowed) return;
    expect(refused.error.toJSON()).toEqual({
      code: -32005,
      message: "limit exceeded",
      data: { tier: "free", limit: 100_000, period: "day", retryAfterMs: 60_000 },
    });
    expect(refused.headers).toMatchObject({
      "Retry-After": "60",
      "RateLimit-Limit": "100000",
      "RateLimit-Remaining": "0",
    });
    clock.now = Date.UTC(2026, 6, 1, 0, 0, 0);
    expect((await access.authorize(caller, 1)).allowed).toBe(true);
  });
});
