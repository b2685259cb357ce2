import { describe, expect, it } from "vitest";
import { backtest } from "./backtest.js";
import { noisyTrend, randomWalk, seededUniform } from "./testing/synthetic.js";

describe("seeded generators", () => {
  it("repeat for a seed and differ between seeds", () => {
    expect(randomWalk(1, 50, 0.02)).toEqual(randomWalk(1, 50, 0.02));
    expect(randomWalk(1, 50, 0.02)).not.toEqual(randomWalk(2, 50, 0.02));
    const uniform = seededUniform(42);
    const draws = Array.from({ length: 10_000 }, uniform);
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(1);
    expect(draws.reduce((a, b) => a + b, 0) / draws.length).toBeCloseTo(0.5, 1);
  });
});

describe("on a pure random walk", () => {
  for (const seed of [1, 2]) {
    const prices = randomWalk(seed, 700, 0.03);
    for (const horizon of [1, 7, 30]) {
      it(`does not beat the random walk and keeps 80 % coverage (seed ${seed}, ${horizon}d)`, () => {
        const report = backtest(prices, horizon);
        expect(report.model.mape / report.baselines["rw-vol90"].mape).toBeGreaterThanOrEqual(0.97);
        expect(report.model.mape / report.baselines["rw-vol90"].mape).toBeLessThanOrEqual(1.03);
        expect(report.model.coverage).toBeGreaterThanOrEqual(horizon === 30 ? 0.7 : 0.75);
        expect(report.model.coverage).toBeLessThanOrEqual(horizon === 30 ? 0.9 : 0.85);
      });
    }
  }
});

describe("on a strong deterministic trend with small noise", () => {
  for (const seed of [1]) {
    const prices = noisyTrend(seed, 1000, 0.004, 0.01);
    for (const [horizon, maxRatio] of [
      [1, 0.9],
      [7, 0.6],
      [30, 0.5],
    ] as const) {
      it(`beats the random walk clearly (seed ${seed}, ${horizon}d)`, () => {
        const report = backtest(prices, horizon);
        expect(report.model.mape / report.baselines["rw-vol90"].mape).toBeLessThan(maxRatio);
        expect(report.model.directionalAccuracy).toBeGreaterThan(0.65);
        expect(report.baselines["rw-vol90"].directionalAccuracy).toBe(0.5);
      });
    }
  }
});
