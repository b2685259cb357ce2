import { describe, expect, it } from "vitest";
import { ConfidenceCalibrator } from "./confidence-calibration.js";
import { toDailyCloses } from "./daily.js";
import { DampedTrend, EwmaDrift } from "./drift.js";
import { ResidualDistribution } from "./interval-calibration.js";
import { normalCdf } from "./math.js";
import { DriftSelector } from "./selector.js";
import { SortedSample } from "./sorted-sample.js";
import { seededNormal, seededUniform } from "./testing/synthetic.js";
import { BiasCorrectedAverage, VolatilityTracker } from "./volatility.js";

describe("SortedSample", () => {
  it("gives interpolated quantiles and the empirical CDF", () => {
    const sample = new SortedSample();
    for (const x of [5, 1, 4, 2, 3]) sample.add(x);
    expect(sample.size).toBe(5);
    expect(sample.quantile(0)).toBe(1);
    expect(sample.quantile(0.5)).toBe(3);
    expect(sample.quantile(1)).toBe(5);
    expect(sample.quantile(0.1)).toBeCloseTo(1.4, 12);
    expect(sample.cdf(3)).toBe(0.6);
    expect(sample.cdf(0)).toBe(0);
    expect(sample.cdf(10)).toBe(1);
    expect(() => new SortedSample().quantile(0.5)).toThrow(RangeError);
  });
});

describe("VolatilityTracker", () => {
  it("recovers a constant daily volatility and scales it by the horizon", () => {
    const normal = seededNormal(7);
    const tracker = new VolatilityTracker(11, 365, 0.93);
    expect(tracker.ready).toBe(false);
    for (let i = 0; i < 5000; i++) tracker.update(0.02 * normal(), 1);
    expect(tracker.ready).toBe(true);
    expect(Math.sqrt(tracker.horizonVariance(1))).toBeGreaterThan(0.015);
    expect(Math.sqrt(tracker.horizonVariance(1))).toBeLessThan(0.025);
    expect(tracker.horizonVariance(30) / tracker.horizonVariance(1)).toBeGreaterThan(20);
  });

  it("forecasts a calm regime to revert towards the long-run level", () => {
    const tracker = new VolatilityTracker(11, 365, 0.93);
    for (let i = 0; i < 400; i++) tracker.update(i % 2 === 0 ? 0.05 : -0.05, 1);
    for (let i = 0; i < 60; i++) tracker.update(0.005, 1);
    const perDay1 = tracker.horizonVariance(1);
    const perDay30 = tracker.horizonVariance(30) / 30;
    expect(perDay30).toBeGreaterThan(2 * perDay1);
  });

  it("counts a multi-day gap as that many days of variance", () => {
    const a = new VolatilityTracker(11, 365, 0.93);
    const b = new VolatilityTracker(11, 365, 0.93);
    a.update(0.02, 1);
    b.update(0.04, 4);
    expect(b.horizonVariance(1)).toBeCloseTo(a.horizonVariance(1), 12);
  });

  it("keeps a positive variance for a flat series", () => {
    const tracker = new VolatilityTracker(11, 365, 0.93);
    tracker.update(0, 1);
    expect(tracker.horizonVariance(7)).toBeGreaterThan(0);
  });
});

describe("BiasCorrectedAverage", () => {
  it("is the plain mean of the first observation and weights recent ones more", () => {
    const avg = new BiasCorrectedAverage(0.5);
    avg.update(4);
    expect(avg.value).toBe(4);
    avg.update(1);
    expect(avg.value).toBeCloseTo((0.5 * 4 + 1) / 1.5, 12);
  });
});

describe("drift candidates", () => {
  const line = (slope: number, days: number) => Array.from({ length: days }, (_, i) => 1 + slope * i);

  it("EWMA drift extrapolates a constant log growth", () => {
    const drift = new EwmaDrift(30);
    for (const y of line(0.01, 200)) drift.update(y, 1);
    expect(drift.forecast(7)).toBeCloseTo(0.07, 10);
  });

  it("the damped trend follows a line but extrapolates it less than linearly", () => {
    const trend = new DampedTrend(0.5, 0.1, 0.98);
    for (const y of line(0.01, 1000)) trend.update(y, 1);
    expect(trend.forecast(1)).toBeGreaterThan(0.005);
    expect(trend.forecast(30)).toBeGreaterThan(0.15);
    expect(trend.forecast(30)).toBeLessThan(0.3);
    const undamped = new DampedTrend(0.5, 0.1, 1);
    for (const y of line(0.01, 1000)) undamped.update(y, 1);
    expect(undamped.forecast(30)).toBeCloseTo(0.3, 6);
  });

  it("both forecast no change on a flat series", () => {
    const drift = new EwmaDrift(30);
    const trend = new DampedTrend(0.5, 0.1, 0.98);
    for (let i = 0; i < 50; i++) {
      drift.update(2, 1);
      trend.update(2, 1);
    }
    expect(drift.forecast(10)).toBe(0);
    expect(trend.forecast(10)).toBeCloseTo(0, 12);
  });
});

describe("DriftSelector", () => {
  it("stays on the random walk when no candidate is significantly better", () => {
    const normal = seededNormal(3);
    const selector = new DriftSelector(1, 1, Number.POSITIVE_INFINITY, 2.5);
    for (let i = 0; i < 2000; i++) selector.record(0.03 * normal(), [0.001]);
    expect(selector.choose()).toEqual({ index: -1, weight: 0 });
  });

  it("picks the candidate with the largest significant improvement", () => {
    const normal = seededNormal(4);
    const selector = new DriftSelector(3, 1, Number.POSITIVE_INFINITY, 2.5);
    expect(selector.choose().index).toBe(-1);
    for (let i = 0; i < 500; i++) {
      const realised = 0.05 + 0.005 * normal();
      selector.record(realised, [-0.05, 0.03, 0.05]);
    }
    expect(selector.choose()).toEqual({ index: 2, weight: 1 });
  });

  it("waits for enough independent evidence at long horizons", () => {
    const selector = new DriftSelector(1, 30, Number.POSITIVE_INFINITY, 2.5);
    for (let i = 0; i < 200; i++) selector.record(0.1 + (i % 2) * 0.01, [0.1]);
    expect(selector.choose().index).toBe(-1);
    for (let i = 0; i < 200; i++) selector.record(0.1 + (i % 2) * 0.01, [0.1]);
    expect(selector.choose().index).toBe(0);
  });
});

describe("ResidualDistribution", () => {
  it("starts from the normal 80 % interval", () => {
    const residuals = new ResidualDistribution(0.8, 0.005, 20);
    expect(residuals.bounds().lower).toBeCloseTo(-1.2816, 4);
    expect(residuals.bounds().upper).toBeCloseTo(1.2816, 4);
    expect(residuals.probabilityBetween(-1, 1)).toBeCloseTo(normalCdf(1) - normalCdf(-1), 7);
  });

  it("learns the empirical quantiles of fat-tailed residuals", () => {
    const uniform = seededUniform(5);
    const residuals = new ResidualDistribution(0.8, 0, 20);
    for (let i = 0; i < 20_000; i++) residuals.record(4 * (uniform() - 0.5), true);
    expect(residuals.bounds().lower).toBeCloseTo(-1.6, 1);
    expect(residuals.bounds().upper).toBeCloseTo(1.6, 1);
    expect(residuals.probabilityBetween(-1, 1)).toBeCloseTo(0.5, 1);
  });

  it("widens after misses and narrows after hits", () => {
    const widening = new ResidualDistribution(0.8, 0.01, 20);
    const narrowing = new ResidualDistribution(0.8, 0.01, 20);
    for (let i = 0; i < 20; i++) {
      widening.record(0, false);
      narrowing.record(0, true);
    }
    for (let i = 0; i < 200; i++) {
      widening.record(i / 100 - 1, true);
      narrowing.record(i / 100 - 1, true);
    }
    expect(widening.bounds().upper).toBeGreaterThan(narrowing.bounds().upper);
  });
});

describe("ConfidenceCalibrator", () => {
  it("is the identity before any outcome", () => {
    const calibrator = new ConfidenceCalibrator(10);
    for (const p of [0.1, 0.5, 0.9]) expect(calibrator.calibrate(p)).toBeCloseTo(p, 10);
  });

  it("learns to deflate over-confident probabilities", () => {
    const uniform = seededUniform(9);
    const calibrator = new ConfidenceCalibrator(10);
    for (let i = 0; i < 4000; i++) {
      const stated = 0.2 + 0.6 * uniform();
      const truth = stated * 0.6;
      calibrator.record(stated, uniform() < truth);
    }
    expect(calibrator.calibrate(0.5)).toBeGreaterThan(0.25);
    expect(calibrator.calibrate(0.5)).toBeLessThan(0.35);
    expect(calibrator.calibrate(0.8)).toBeLessThan(0.55);
  });
});

describe("toDailyCloses", () => {
  it("keeps the last observation of each UTC day, in time order", () => {
    const day = 86_400;
    const closes = toDailyCloses([
      { time: 10 * day + 100, price: 2 },
      { time: 9 * day + 5, price: 1 },
      { time: 10 * day + 50, price: 3 },
      { time: 12 * day + day - 1, price: 4 },
      { time: 12 * day + day - 1, price: 5 },
    ]);
    expect(closes).toEqual([
      { day: 9, price: 1 },
      { day: 10, price: 2 },
      { day: 12, price: 5 },
    ]);
  });

  it("rejects invalid prices and times", () => {
    expect(() => toDailyCloses([{ time: 0, price: 0 }])).toThrow(RangeError);
    expect(() => toDailyCloses([{ time: 0, price: Number.NaN }])).toThrow(RangeError);
    expect(() => toDailyCloses([{ time: Number.POSITIVE_INFINITY, price: 1 }])).toThrow(RangeError);
  });
});
