import { describe, expect, it } from "vitest";
import { revertedHorizonVariance } from "./forecaster.js";
import {
  coordinatesToHarShape,
  fitHar,
  HarComponents,
  harHorizonVariance,
  harShapeToCoordinates,
} from "./har.js";
import { seededNormal } from "./testing/synthetic.js";
import { HarVolatility } from "./volatility.js";

/** Daily returns of a HAR process: σ²ₜ₊₁ = ω + d·r²ₜ + w·mean₅(r²) + m·mean₂₂(r²), Gaussian shocks. */
function harReturns(
  seed: number,
  n: number,
  daily: number,
  weekly: number,
  monthly: number,
  longRun: number,
): number[] {
  const normal = seededNormal(seed);
  const omega = longRun * (1 - daily - weekly - monthly);
  const components = new HarComponents(longRun);
  const returns: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = Math.sqrt(components.next({ daily, weekly, monthly }, omega)) * normal();
    returns.push(r);
    components.add(r * r);
  }
  return returns;
}

describe("HAR variance on daily squared returns", () => {
  it("maps shapes to coordinates and back", () => {
    const shape = { daily: 0.2, weekly: 0.3, monthly: 0.4 };
    const back = coordinatesToHarShape(harShapeToCoordinates(shape));
    expect(back.daily).toBeCloseTo(0.2, 12);
    expect(back.weekly).toBeCloseTo(0.3, 12);
    expect(back.monthly).toBeCloseTo(0.4, 12);
  });

  it("recovers the weights of a simulated HAR process by quasi-maximum likelihood", () => {
    const fit = fitHar(harReturns(11, 6000, 0.3, 0.2, 0.4, 1e-4));
    expect(fit.daily + fit.weekly + fit.monthly).toBeGreaterThan(0.85);
    expect(fit.daily + fit.weekly + fit.monthly).toBeLessThan(0.95);
    expect(fit.daily).toBeGreaterThan(0.2);
    expect(fit.daily).toBeLessThan(0.4);
  });

  it("reverts the h-day variance to the long-run level after a shock", () => {
    const engine = new HarVolatility();
    for (const r of harReturns(5, 1500, 0.2, 0.3, 0.4, 1e-4)) engine.update(r);
    engine.update(0.08); // an 8 % day: far above the 1 % long-run volatility
    const next = engine.nextVariance;
    const perDay30 = engine.horizonVariance(30) / 30;
    const perDay365 = engine.horizonVariance(365) / 365;
    // The shock lifts tomorrow's variance; the longer the horizon, the nearer the mean daily variance is to the long run.
    expect(next).toBeGreaterThan(5e-4);
    expect(perDay30).toBeLessThan(next);
    expect(perDay365).toBeLessThan(perDay30);
    expect(perDay365).toBeLessThan(3e-4);
  });

  it("iterates the recursion with forecasts in place of future squares", () => {
    const components = new HarComponents(1);
    const shape = { daily: 0.5, weekly: 0, monthly: 0 };
    components.add(3);
    // v₁ = 0.5 + 0.5·3 = 2, v₂ = 0.5 + 0.5·2 = 1.5: the sum over two days is 3.5.
    expect(harHorizonVariance(components, shape, 0.5, 2)).toBeCloseTo(3.5, 12);
  });
});

describe("variance reversion towards the long-run level", () => {
  it("leaves the variance alone without decay and pulls it part-way with one", () => {
    expect(revertedHorizonVariance(30 * 4e-4, 1e-4, 30, 1)).toBe(30 * 4e-4);
    const decay = 0.5 ** (1 / 30);
    const kept = (1 - decay ** 30) / (30 * (1 - decay));
    expect(revertedHorizonVariance(30 * 4e-4, 1e-4, 30, decay)).toBeCloseTo(30 * (1e-4 + kept * 3e-4), 15);
    // One day ahead, almost all of the distance is kept.
    expect(revertedHorizonVariance(4e-4, 1e-4, 1, decay)).toBeCloseTo(4e-4, 15);
  });
});
