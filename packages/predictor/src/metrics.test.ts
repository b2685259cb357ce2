import { describe, expect, it } from "vitest";
import {
  calibrationError,
  dieboldMarianoT,
  directionScore,
  isHit,
  pinballLoss,
  type ScoredForecast,
  scoreForecasts,
  winklerScore,
} from "./metrics.js";

const forecast = (over: Partial<ScoredForecast>): ScoredForecast => ({
  current: 100,
  predicted: 100,
  lower: 90,
  upper: 110,
  confidence: 0.5,
  realised: 100,
  ...over,
});

describe("calibrationError", () => {
  it("is 0 for perfectly calibrated bins", () => {
    const confidences = [0.25, 0.25, 0.25, 0.25, 0.75, 0.75, 0.75, 0.75];
    const hits = [true, false, false, false, true, true, true, false];
    expect(calibrationError(confidences, hits)).toBeCloseTo(0, 12);
  });

  it("weights each bin's |mean confidence - hit rate| by its count", () => {
    // bin [0.9, 1]: 3 forecasts at 0.9, 1 hit -> gap 0.9 - 1/3; bin [0.1, 0.2): 1 forecast, 1 hit -> gap 0.9.
    const confidences = [0.9, 0.9, 0.9, 0.1];
    const hits = [true, false, false, true];
    const expected = (3 * (0.9 - 1 / 3) + 1 * 0.9) / 4;
    expect(calibrationError(confidences, hits)).toBeCloseTo(expected, 12);
  });

  it("puts a confidence of exactly 1 in the top bin and averages within a bin", () => {
    expect(calibrationError([1, 0.95], [true, true])).toBeCloseTo(0.025, 12);
    expect(calibrationError([], [])).toBe(0);
  });
});

describe("directionScore", () => {
  it("credits a right call 1, a wrong call 0 and no call 0.5", () => {
    expect(directionScore({ current: 100, predicted: 101, realised: 120 })).toBe(1);
    expect(directionScore({ current: 100, predicted: 101, realised: 90 })).toBe(0);
    expect(directionScore({ current: 100, predicted: 99, realised: 90 })).toBe(1);
    expect(directionScore({ current: 100, predicted: 100, realised: 120 })).toBe(0.5);
    expect(directionScore({ current: 100, predicted: 101, realised: 100 })).toBe(0);
  });
});

describe("scoreForecasts", () => {
  it("computes MAPE, coverage, hit rate and directional accuracy", () => {
    const metrics = scoreForecasts([
      forecast({ realised: 104, predicted: 100 }),
      forecast({ realised: 80, predicted: 100, lower: 85 }),
      forecast({ realised: 110, predicted: 102, confidence: 0.7 }),
    ]);
    expect(metrics.predictions).toBe(3);
    expect(metrics.mape).toBeCloseTo((4 / 104 + 20 / 80 + 8 / 110) / 3, 12);
    expect(metrics.coverage).toBeCloseTo(2 / 3, 12);
    expect(metrics.hitRate).toBeCloseTo(1 / 3, 12);
    expect(metrics.directionalAccuracy).toBeCloseTo((0.5 + 0.5 + 1) / 3, 12);
    expect(metrics.meanConfidence).toBeCloseTo(1.7 / 3, 12);
  });

  it("rejects an empty set", () => {
    expect(() => scoreForecasts([])).toThrow(RangeError);
  });

  it("counts a hit within ±5 % of the point forecast", () => {
    expect(isHit({ predicted: 100, realised: 104.99 })).toBe(true);
    expect(isHit({ predicted: 100, realised: 105.01 })).toBe(false);
    expect(isHit({ predicted: 100, realised: 95.01 })).toBe(true);
    expect(isHit({ predicted: 100, realised: 94.99 })).toBe(false);
  });
});

describe("proper scores", () => {
  it("Winkler: width, plus 2/α times the miss, in units of the origin price", () => {
    expect(winklerScore({ current: 100, lower: 90, upper: 110, realised: 100 })).toBeCloseTo(0.2, 12);
    expect(winklerScore({ current: 100, lower: 90, upper: 110, realised: 115 })).toBeCloseTo(
      0.2 + 10 * 0.05,
      12,
    );
    expect(winklerScore({ current: 100, lower: 90, upper: 110, realised: 80 })).toBeCloseTo(
      0.2 + 10 * 0.1,
      12,
    );
  });

  it("pinball: mean quantile loss over the seven levels", () => {
    const quantiles = [90, 95, 98, 100, 102, 105, 110];
    const f = forecast({ quantiles, realised: 100 });
    const expected =
      [0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95].reduce((sum, p, i) => {
        const u = 100 - quantiles[i]!;
        return sum + Math.max(p * u, (p - 1) * u);
      }, 0) /
      7 /
      100;
    expect(pinballLoss(f)).toBeCloseTo(expected, 12);
  });

  it("Diebold-Mariano: zero for equal losses, large and negative for a consistently lower loss", () => {
    expect(dieboldMarianoT([0, 0, 0, 0], 1)).toBe(0);
    const better = Array.from({ length: 200 }, (_, i) => -0.1 + 0.05 * Math.sin(i));
    expect(dieboldMarianoT(better, 7)).toBeLessThan(-5);
    // Overlap inflates the variance: a longer HAC lag gives a smaller |t| on autocorrelated differences.
    const smooth = Array.from({ length: 200 }, (_, i) => 0.01 + Math.sin(i / 10));
    expect(Math.abs(dieboldMarianoT(smooth, 20))).toBeLessThan(Math.abs(dieboldMarianoT(smooth, 0)));
  });
});
