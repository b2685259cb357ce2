import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REDIS_URL, redisPrefix } from "../e2e/helpers.js";
import { RedisRateLimiter } from "./redis-limiter.js";

let limiter: RedisRateLimiter;
const prefix = redisPrefix();

beforeAll(async () => {
  limiter = new RedisRateLimiter(REDIS_URL, prefix);
  await limiter.ready();
});

afterAll(async () => {
  await limiter?.close();
});

describe("Redis limiter under concurrent charges", () => {
  it("counts every concurrent unlimited charge, summed into the day's usage", async () => {
    const now = Date.UTC(2026, 4, 1, 12);
    const charge = (subject: string, cost: number) =>
      limiter.consume({ subject, perSecond: 0, perDay: 0, cost, now });
    const outcomes = await Promise.all([
      ...Array.from({ length: 40 }, () => charge("key:enterprise-a", 1)),
      charge("key:enterprise-a", 5),
      charge("key:enterprise-b", 2),
    ]);
    expect(outcomes.every((o) => o.allowed)).toBe(true);
    expect((await charge("key:enterprise-a", 1)).dayUsed).toBe(46);
    expect((await charge("key:enterprise-b", 1)).dayUsed).toBe(3);
  });

  it("counts deferred unlimited charges of several turns together, and counts what is left on close", async () => {
    const now = Date.UTC(2026, 4, 2, 12);
    const deferred = (target: RedisRateLimiter, cost: number) =>
      target.consume({ subject: "key:enterprise-c", perSecond: 0, perDay: 0, cost, now, deferred: true });
    const first = deferred(limiter, 2);
    await new Promise((resolve) => setImmediate(resolve));
    const second = deferred(limiter, 3);
    // One script call for both turns: both see the day's usage after the two charges.
    expect((await first).dayUsed).toBe(5);
    expect((await second).dayUsed).toBe(5);

    const closing = new RedisRateLimiter(REDIS_URL, prefix);
    await closing.ready();
    const left = deferred(closing, 4);
    await closing.close();
    expect((await left).dayUsed).toBe(9);
    const read = await limiter.consume({
      subject: "key:enterprise-c",
      perSecond: 0,
      perDay: 0,
      cost: 0,
      now,
    });
    expect(read.dayUsed).toBe(9);
  });

  it("charges limited callers one by one, so concurrent calls beyond the limit are refused individually", async () => {
    const now = Date.UTC(2026, 4, 1, 12);
    const outcomes = await Promise.all(
      Array.from({ length: 13 }, () =>
        limiter.consume({ subject: "ip:203.0.113.9", perSecond: 10, perDay: 100, cost: 1, now }),
      ),
    );
    expect(outcomes.filter((o) => o.allowed)).toHaveLength(10);
    expect(outcomes.filter((o) => o.refusedBy === "second")).toHaveLength(3);
  });
});
