import { describe, expect, it } from "vitest";
import { backtest } from "./backtest.js";
import { InsufficientHistoryError } from "./errors.js";
import { Forecaster } from "./forecaster.js";
import { DEFAULT_MODEL_PARAMETERS, MIN_HISTORY_DAYS, MODEL_VERSION } from "./parameters.js";
import { predict } from "./predict.js";
import { randomWalk } from "./testing/synthetic.js";
import type { PricePoint } from "./types.js";

const DAY = 86_400;
const START = 1_700_000_000 - (1_700_000_000 % DAY);
const asPoints = (prices: readonly number[]): PricePoint[] =>
  prices.map((price, i) => ({ time: START + i * DAY, price }));

describe("predict", () => {
  const history = asPoints(randomWalk(11, 600, 0.03));

  it("is deterministic", () => {
    expect(predict(history, 7)).toEqual(predict(history, 7));
    expect(predict([...history], 7)).toStrictEqual(predict(history, 7));
  });

  it("returns a complete, consistent prediction", () => {
    const p = predict(history, 7);
    const last = history.at(-1)!;
    expect(p.currentPrice).toBe(last.price);
    expect(p.time).toBe(last.time);
    expect(p.horizonDays).toBe(7);
    expect(p.modelVersion).toBe(MODEL_VERSION);
    expect(p.lower).toBeLessThan(p.predictedPrice);
    expect(p.upper).toBeGreaterThan(p.predictedPrice);
    expect(p.confidence).toBeGreaterThan(0);
    expect(p.confidence).toBeLessThan(1);
    const q = p.quantiles;
    expect([q["5"], q["10"], q["25"], q["50"], q["75"], q["90"], q["95"]]).toEqual(
      [q["5"], q["10"], q["25"], q["50"], q["75"], q["90"], q["95"]].sort((a, b) => a - b),
    );
    expect([q["10"], q["50"], q["90"]]).toEqual([p.lower, p.predictedPrice, p.upper]);
    // No drift on a random walk: the median is the current price and up is a coin toss.
    expect(p.predictedPrice).toBe(p.currentPrice);
    expect(p.probabilityUp).toBeGreaterThan(0.4);
    expect(p.probabilityUp).toBeLessThan(0.6);
  });

  it("widens the interval and lowers the confidence with the horizon", () => {
    const short = predict(history, 1);
    const long = predict(history, 30);
    expect(long.upper / long.lower).toBeGreaterThan(short.upper / short.lower);
    expect(long.confidence).toBeLessThan(short.confidence);
  });

  it("uses the latest intraday price as the current price", () => {
    const last = history.at(-1)!;
    const intraday = [
      ...history,
      { time: last.time + 3600, price: 123 },
      { time: last.time + 7200, price: 125 },
    ];
    const p = predict(intraday, 1);
    expect(p.currentPrice).toBe(125);
    expect(p.time).toBe(last.time + 7200);
    expect(predict(intraday, 1)).toEqual(
      predict([...history.slice(0, -1), { time: last.time + 7200, price: 125 }], 1),
    );
  });

  it("accepts points in any order", () => {
    expect(predict([...history].reverse(), 7)).toEqual(predict(history, 7));
  });

  it("throws InsufficientHistoryError below the minimum history", () => {
    const short = history.slice(0, MIN_HISTORY_DAYS - 1);
    expect(() => predict(short, 1)).toThrow(InsufficientHistoryError);
    try {
      predict(short, 1);
    } catch (error) {
      expect(error).toBeInstanceOf(InsufficientHistoryError);
      const e = error as InsufficientHistoryError;
      expect(e.required).toBe(MIN_HISTORY_DAYS);
      expect(e.available).toBe(MIN_HISTORY_DAYS - 1);
      expect(e.name).toBe("InsufficientHistoryError");
    }
    expect(() => predict(history.slice(0, MIN_HISTORY_DAYS), 1)).not.toThrow();
  });

  it("counts daily closes, not points, towards the minimum", () => {
    const sameDay = Array.from({ length: 500 }, (_, i) => ({ time: START + i, price: 100 + i }));
    expect(() => predict(sameDay, 1)).toThrow(
      expect.objectContaining({ required: MIN_HISTORY_DAYS, available: 1 }),
    );
    expect(() => predict([], 1)).toThrow(InsufficientHistoryError);
  });

  it("rejects horizons that are not whole days >= 1", () => {
    for (const h of [0, -1, 1.5, Number.NaN]) expect(() => predict(history, h)).toThrow(RangeError);
  });

  it("handles a flat series", () => {
    const p = predict(asPoints(new Array(100).fill(50)), 7);
    expect(p.predictedPrice).toBe(50);
    expect(p.lower).toBeGreaterThan(49.9);
    expect(p.upper).toBeLessThan(50.1);
    expect(p.confidence).toBeGreaterThan(0.99);
  });

  it("equals the forecast the walk-forward run makes at that origin (no look-ahead)", () => {
    const forecaster = new Forecaster(7, DEFAULT_MODEL_PARAMETERS);
    const checked = [29, 100, 333, 599];
    for (const [index, price] of history.map((p) => p.price).entries()) {
      forecaster.observe({ day: index, price });
      if (!checked.includes(index)) continue;
      const f = forecaster.latest!;
      const p = predict(history.slice(0, index + 1), 7);
      expect(p.predictedPrice).toBe(price * Math.exp(f.change));
      expect(p.lower).toBe(price * Math.exp(f.quantiles[1]!));
      expect(p.upper).toBe(price * Math.exp(f.quantiles[5]!));
      expect(p.quantiles["5"]).toBe(price * Math.exp(f.quantiles[0]!));
      expect(p.confidence).toBe(f.confidence);
      expect(p.probabilityUp).toBe(f.probabilityUp);
    }
  });

  it("is what the backtest scores at its only origin", () => {
    const warmup = 200;
    const series = history.slice(0, warmup + 7).map((p) => p.price);
    const report = backtest(series, 7, { warmup });
    const p = predict(history.slice(0, warmup), 7);
    const realised = series.at(-1)!;
    expect(report.model.predictions).toBe(1);
    expect(report.model.mape).toBeCloseTo(Math.abs(realised - p.predictedPrice) / realised, 12);
    expect(report.model.meanConfidence).toBe(p.confidence);
    expect(report.model.coverage).toBe(realised >= p.lower && realised <= p.upper ? 1 : 0);
  });

  it("applies parameter overrides", () => {
    const ewma = predict(history, 7, { parameters: { volatilityModel: "ewma" } });
    expect(ewma.upper).not.toBe(predict(history, 7).upper);
  });
});
