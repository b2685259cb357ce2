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
