import { describe, expect, it } from "vitest";
import { backtest } from "./backtest.js";
import { InsufficientHistoryError } from "./errors.js";
import { MODEL_VERSION } from "./parameters.js";
import { randomWalk } from "./testing/synthetic.js";

describe("backtest", () => {
  const prices = randomWalk(5, 400, 0.02);

  it("reports the model and every baseline on the same origins with the settings used", () => {
    const report = backtest(prices, 7, { warmup: 60 });
    expect(report).toMatchObject({ horizon: 7, step: 1, warmup: 60, modelVersion: MODEL_VERSION });
    expect(report.model.predictions).toBe(400 - 60 + 1 - 7);
    expect(Object.keys(report.baselines).sort()).toEqual(["ewma-fhs", "ewma-normal", "garch", "rw-vol90"]);
    for (const metrics of Object.values(report.baselines)) {
      expect(metrics.predictions).toBe(report.model.predictions);
      expect(metrics.winkler).toBeGreaterThan(0);
      expect(metrics.pinball).toBeGreaterThan(0);
    }
    expect(report.forecasts).toHaveLength(report.model.predictions);
    const terciles = report.coverageByVolatility.map((g) => g.predictions);
    expect(terciles.reduce((a, b) => a + b, 0)).toBe(report.model.predictions);
    expect(Math.max(...terciles) - Math.min(...terciles)).toBeLessThanOrEqual(2);
    expect(report.coverageByYear.reduce((a, g) => a + g.predictions, 0)).toBe(report.model.predictions);
    for (const dm of Object.values(report.dieboldMariano)) expect(Number.isFinite(dm.winkler)).toBe(true);
  });

  it("scores only origins within [fromDay, beforeDay) while earlier closes still train", () => {
    const all = backtest(prices, 1, { warmup: 60 });
    const part = backtest(prices, 1, { warmup: 60, fromDay: 200, beforeDay: 300 });
    expect(part.forecasts.map((f) => f.originDay)).toEqual(
      all.forecasts.filter((f) => f.originDay >= 200 && f.originDay < 300).map((f) => f.originDay),
    );
    expect(part.forecasts[0]).toEqual(all.forecasts.find((f) => f.originDay === 200));
  });

  it("treats plain numbers as consecutive daily closes", () => {
    const start = 1_600_000_000 - (1_600_000_000 % 86_400);
    const points = prices.map((price, i) => ({ time: start + i * 86_400 + 3600, price }));
    const fromPoints = backtest(points, 7);
    const fromNumbers = backtest(prices, 7);
    expect(fromPoints.model).toEqual(fromNumbers.model);
    expect(fromPoints.baselines).toEqual(fromNumbers.baselines);
  });

  it("thins origins with step without changing the forecasts", () => {
    const every = backtest(prices, 1, { warmup: 100 });
    const thinned = backtest(prices, 1, { warmup: 100, step: 10 });
    expect(thinned.model.predictions).toBe(Math.ceil(every.model.predictions / 10));
    const single = backtest(prices.slice(0, 101), 1, { warmup: 100 });
    const firstOfThinned = backtest(prices.slice(0, 101), 1, { warmup: 100, step: 10 });
    expect(firstOfThinned).toEqual({ ...single, step: 10 });
  });

  it("skips origins whose target day is missing", () => {
    const day = 86_400;
    const points = prices.map((price, i) => ({ time: i * day, price })).filter((_, i) => i % 50 !== 49);
    const report = backtest(points, 1, { warmup: 60 });
    const origins = points.length - 60 + 1;
    expect(report.model.predictions).toBeLessThan(origins);
    expect(report.model.predictions).toBeGreaterThan(origins - 20);
  });

  it("rejects invalid options and too short series", () => {
    expect(() => backtest(prices, 0)).toThrow(RangeError);
    expect(() => backtest(prices, 1, { step: 0 })).toThrow(RangeError);
    expect(() => backtest(prices, 1, { warmup: 10 })).toThrow(RangeError);
    expect(() => backtest(prices.slice(0, 95), 7)).toThrow(InsufficientHistoryError);
    expect(() => backtest([], 1)).toThrow(InsufficientHistoryError);
    expect(() => backtest([1, { time: 0, price: 1 }] as unknown as number[], 1)).toThrow(TypeError);
  });
});
