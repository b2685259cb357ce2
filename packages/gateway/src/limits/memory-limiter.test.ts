import { describe, expect, it } from "vitest";
import { MemoryRateLimiter } from "./memory-limiter.js";

const NOON = Date.UTC(2026, 0, 15, 12, 0, 0);

describe("in-memory limiter sweep", () => {
  it("forgets subjects of past windows and days, keeping today's quotas", async () => {
    let now = NOON;
    const limiter = new MemoryRateLimiter(() => now);
    try {
      // Many keyless IPs (Free: a daily quota) and unlimited subjects (no quota) call once.
      for (let i = 0; i < 1_000; i++) {
        await limiter.consume({
          subject: `ip:10.0.${i >> 8}.${i & 255}`,
          perSecond: 10,
          perDay: 100_000,
          cost: 1,
          now,
        });
        await limiter.consume({ subject: `key:unlimited-${i}`, perSecond: 0, perDay: 0, cost: 1, now });
      }
      expect(limiter.size).toBe(2_000);
      now += 2_000;
      limiter.sweep(now);
      // The unlimited ones hold nothing once their window passed; the quotas stay for the day.
      expect(limiter.size).toBe(1_000);
      const again = await limiter.consume({
        subject: "ip:10.0.0.0",
        perSecond: 10,
        perDay: 100_000,
        cost: 1,
        now,
      });
      expect(again.dayUsed).toBe(2);
      now = Date.UTC(2026, 0, 16, 0, 0, 1);
      limiter.sweep(now);
      expect(limiter.size).toBe(0);
    } finally {
      await limiter.close();
    }
  });
});

describe("in-memory limiter bound", () => {
  const free = (subject: string, now: number) => ({ subject, perSecond: 10, perDay: 100_000, cost: 1, now });

  it("stays at its bound of subjects when more call, forgetting the least recently charged address", async () => {
    let now = NOON;
    const bound = 100;
    const limiter = new MemoryRateLimiter(() => now, bound);
    try {
      expect(limiter.bound).toBe(bound);
      await limiter.consume({ subject: "key:developer", perSecond: 50, perDay: 1_000_000, cost: 1, now });
      await limiter.consume(free("ip:busy", now));
      await limiter.consume(free("ip:idle", now));
      // Three times the bound of new addresses, each once, 10 ms apart; the busy caller and the key call
      // again every twenty of them.
      for (let i = 0; i < 3 * bound; i++) {
        now += 10;
        const outcome = await limiter.consume(free(`ip:10.1.${i >> 8}.${i & 255}`, now));
        expect(outcome.allowed).toBe(true);
        expect(limiter.size).toBeLessThanOrEqual(bound);
        if (i % 20 === 0) {
          await limiter.consume(free("ip:busy", now));
          await limiter.consume({ subject: "key:developer", perSecond: 50, perDay: 1_000_000, cost: 1, now });
        }
      }
      expect(limiter.size).toBe(bound);
      // The busy address and the key kept their day's count; the idle address starts afresh.
      expect((await limiter.consume(free("ip:busy", now))).dayUsed).toBe(15 + 2);
      expect(
        (await limiter.consume({ subject: "key:developer", perSecond: 50, perDay: 1_000_000, cost: 1, now }))
          .dayUsed,
      ).toBe(15 + 2);
      expect((await limiter.consume(free("ip:idle", now))).dayUsed).toBe(1);
      expect(limiter.size).toBe(bound);
    } finally {
      await limiter.close();
    }
  });

  it("never forgets a key's counters to make room for addresses", async () => {
    let now = NOON;
    const limiter = new MemoryRateLimiter(() => now, 10);
    try {
      await limiter.consume({ subject: "key:old", perSecond: 50, perDay: 1_000_000, cost: 5, now });
      for (let i = 0; i < 50; i++) {
        now += 1;
        await limiter.consume(free(`ip:10.2.0.${i}`, now));
      }
      expect(limiter.size).toBe(10);
      const key = await limiter.consume({
        subject: "key:old",
        perSecond: 50,
        perDay: 1_000_000,
        cost: 1,
        now,
      });
      expect(key.dayUsed).toBe(6);
    } finally {
      await limiter.close();
    }
  });

  it("sweeps before forgetting anyone: subjects that hold nothing any more make the room", async () => {
    let now = NOON;
    const limiter = new MemoryRateLimiter(() => now, 10);
    try {
      for (let i = 0; i < 5; i++) await limiter.consume(free(`ip:10.3.0.${i}`, now));
      for (let i = 0; i < 5; i++)
        await limiter.consume({ subject: `key:unlimited-${i}`, perSecond: 0, perDay: 0, cost: 1, now });
      expect(limiter.size).toBe(10);
      now += 2_000;
      await limiter.consume(free("ip:new", now));
      // The unlimited keys' windows had passed: the sweep dropped them, and every address kept its count.
      expect(limiter.size).toBe(6);
      for (let i = 0; i < 5; i++)
        expect((await limiter.consume(free(`ip:10.3.0.${i}`, now))).dayUsed).toBe(2);
    } finally {
      await limiter.close();
    }
  });
});
