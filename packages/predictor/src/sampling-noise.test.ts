import { describe, expect, it } from "vitest";
import { perfectForecastNoise } from "./sampling-noise.js";

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const spread = (n: number) => Array.from({ length: n }, (_, i) => 0.1 + (0.8 * i) / n);

describe("perfectForecastNoise", () => {
  it("is deterministic for a seed", () => {
    const a = perfectForecastNoise(spread(500), [range(500)], 7, { draws: 50, seed: 3 });
    expect(perfectForecastNoise(spread(500), [range(500)], 7, { draws: 50, seed: 3 })).toEqual(a);
  });

  it("matches the binomial standard error of coverage for independent outcomes", () => {
    // One group of 1,600 independent origins: |coverage - 0.8| has median 0.674 · √(0.16 / 1600) = 0.0067.
    const { coverageDeviation } = perfectForecastNoise(spread(1600), [range(1600)], 1, { draws: 400 });
    expect(coverageDeviation.median).toBeGreaterThan(0.005);
    expect(coverageDeviation.median).toBeLessThan(0.0085);
  });

  it("shrinks with more origins and grows with the overlap of h-day outcomes", () => {
    const noise = (n: number, horizon: number) =>
      perfectForecastNoise(spread(n), [range(n)], horizon, { draws: 100 });
    const few = noise(300, 1);
    const many = noise(3000, 1);
    const overlapping = noise(3000, 30);
    expect(many.calibrationError.median).toBeLessThan(few.calibrationError.median);
    expect(overlapping.calibrationError.median).toBeGreaterThan(2 * many.calibrationError.median);
    expect(overlapping.coverageDeviation.median).toBeGreaterThan(3 * many.coverageDeviation.median);
  });

  it("takes the largest deviation over the groups", () => {
    const one = perfectForecastNoise(spread(900), [range(900)], 1, { draws: 100 });
    const thirds = perfectForecastNoise(
      spread(900),
      [range(300), range(300).map((i) => i + 300), range(300).map((i) => i + 600)],
      1,
      { draws: 100 },
    );
    expect(thirds.coverageDeviation.median).toBeGreaterThan(one.coverageDeviation.median);
  });
});
