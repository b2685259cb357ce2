import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { backtest } from "./backtest.js";
import { parsePriceCsv, rowsToPricePoints } from "./csv.js";
import { InsufficientHistoryError } from "./errors.js";
import { MODEL_VERSION } from "./parameters.js";
import { randomWalk } from "./testing/synthetic.js";

const PRICE_FILES = ["BTC-USD.csv", "ETH-USD.csv", "SOL-USD.csv", "BNB-USD.csv"];
const loadPriceFile = (file: string) =>
  rowsToPricePoints(parsePriceCsv(readFileSync(new URL(`../data/${file}`, import.meta.url), "utf8")));

describe("backtest on the shipped daily closes (BTC, ETH, SOL, BNB)", () => {
  for (const file of PRICE_FILES) {
    const points = loadPriceFile(file);
    for (const horizon of [1, 7, 30]) {
      it(`${file} at ${horizon}d: MAPE <= random walk, 80 % coverage in 0.75..0.85, calibration error <= 0.05`, () => {
        const { model, baseline } = backtest(points, horizon);
        expect(model.predictions).toBeGreaterThanOrEqual(300);
        expect(baseline.predictions).toBe(model.predictions);
        expect(model.mape).toBeLessThanOrEqual(baseline.mape);
        expect(model.coverage).toBeGreaterThanOrEqual(0.75);
        expect(model.coverage).toBeLessThanOrEqual(0.85);
        expect(model.calibrationError).toBeLessThanOrEqual(0.05);
      });
    }
  }
});

describe("backtest", () => {
  const prices = randomWalk(5, 400, 0.02);

  it("reports both models with the settings used", () => {
    const report = backtest(prices, 7, { warmup: 60 });
    expect(report).toMatchObject({ horizon: 7, step: 1, warmup: 60, modelVersion: MODEL_VERSION });
    expect(report.model.predictions).toBe(400 - 60 + 1 - 7);
    expect(report.baseline.mape).toBeGreaterThan(0);
  });

  it("treats plain numbers as consecutive daily closes", () => {
    const start = 1_600_000_000 - (1_600_000_000 % 86_400);
    const points = prices.map((price, i) => ({ time: start + i * 86_400 + 3600, price }));
    expect(backtest(points, 7)).toEqual(backtest(prices, 7));
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
