import { describe, expect, it } from "vitest";
import { BacktestCache } from "./backtest-cache.js";

describe("BacktestCache", () => {
  it("holds at most its bound of backtests when asked for more", async () => {
    const cache = new BacktestCache();
    expect(cache.held.bound).toBe(64);
    for (let day = 1; day <= 200; day++) {
      // Too little history: the answer (null) is remembered like a summary.
      expect(await cache.get("BTC/USD", 7, [{ time: day * 86_400, price: day }])).toBeNull();
    }
    expect(cache.held.size()).toBe(64);
  });
});
