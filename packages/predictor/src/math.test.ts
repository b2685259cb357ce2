import { describe, expect, it } from "vitest";
import { clamp, logit, normalCdf, normalQuantile, sigmoid } from "./math.js";

describe("normal distribution", () => {
  it("matches known values of Φ", () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959963985)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-1.281551566)).toBeCloseTo(0.1, 6);
    expect(normalCdf(8)).toBeCloseTo(1, 7);
  });

  it("inverts Φ", () => {
    for (const p of [1e-6, 0.01, 0.1, 0.3, 0.5, 0.8, 0.975, 0.999999]) {
      expect(normalCdf(normalQuantile(p))).toBeCloseTo(p, 6);
    }
    expect(normalQuantile(0.9)).toBeCloseTo(1.2815515655, 8);
    expect(() => normalQuantile(0)).toThrow(RangeError);
    expect(() => normalQuantile(1)).toThrow(RangeError);
  });
});

describe("logistic helpers", () => {
  it("logit and sigmoid are inverse, logit stays finite at 0 and 1", () => {
    for (const p of [0.01, 0.2, 0.5, 0.77, 0.99]) expect(sigmoid(logit(p))).toBeCloseTo(p, 12);
    expect(Number.isFinite(logit(0))).toBe(true);
    expect(Number.isFinite(logit(1))).toBe(true);
  });

  it("clamps", () => {
    expect(clamp(5, 0, 1)).toBe(1);
    expect(clamp(-5, 0, 1)).toBe(0);
    expect(clamp(0.3, 0, 1)).toBe(0.3);
  });
});
