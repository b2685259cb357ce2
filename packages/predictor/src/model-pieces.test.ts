import { describe, expect, it } from "vitest";
import { BiasCorrectedAverage } from "./average.js";
import { toDailyCloses } from "./daily.js";
import { DampedTrend, EwmaDrift } from "./drift.js";
import { DriftSelector } from "./selector.js";
import { SortedSample } from "./sorted-sample.js";
import { seededNormal } from "./testing/synthetic.js";

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
