import { describe, expect, it } from "vitest";
import { backtest } from "./backtest.js";
import { Forecaster } from "./forecaster.js";
import { fitGarch } from "./garch.js";
import { IsotonicCalibrator, poolAdjacentViolators } from "./isotonic.js";
import { DEFAULT_MODEL_PARAMETERS } from "./parameters.js";
import { CenteredResiduals, RegimeWidths } from "./residuals.js";
import { unitStudentCdf, unitStudentQuantile } from "./student-t.js";
import { fxLike, randomWalk, seededNormal, seededUniform } from "./testing/synthetic.js";
import { BadTickFilter, EwmaVolatility, GarchVolatility } from "./volatility.js";

/** Daily returns of a GARCH(1,1) process with unit-variance Student-t innovations. */
function garchReturns(
  seed: number,
  n: number,
  omega: number,
  alpha: number,
  beta: number,
  nu: number,
): number[] {
  const normal = seededNormal(seed);
  const returns: number[] = [];
  let variance = omega / (1 - alpha - beta);
  for (let i = 0; i < n; i++) {
    let chi = 0;
    for (let k = 0; k < nu; k++) chi += normal() ** 2;
    const z = (normal() / Math.sqrt(chi / nu)) * Math.sqrt((nu - 2) / nu);
    const r = Math.sqrt(variance) * z;
    returns.push(r);
    variance = omega + alpha * r * r + beta * variance;
  }
  return returns;
}

describe("GARCH(1,1)-t by maximum likelihood", () => {
  it("recovers the parameters of simulated GARCH-t data", () => {
    const returns = garchReturns(42, 4000, 2e-5, 0.1, 0.85, 5);
    const fit = fitGarch(returns);
    expect(fit.alpha).toBeGreaterThan(0.06);
    expect(fit.alpha).toBeLessThan(0.14);
    expect(fit.alpha + fit.beta).toBeGreaterThan(0.9);
    expect(fit.alpha + fit.beta).toBeLessThan(0.99);
    expect(fit.nu).toBeGreaterThan(3.8);
    expect(fit.nu).toBeLessThan(7);
    expect(fit.omega / (1 - fit.alpha - fit.beta)).toBeCloseTo(2e-5 / 0.05, 3);
  });

  it("leans on the pooled shape for a short history", () => {
    const engine = new GarchVolatility({ poolingCount: 730 });
    for (const r of garchReturns(3, 150, 1e-5, 0.3, 0.6, 8)) engine.update(r);
    const pooled = DEFAULT_MODEL_PARAMETERS;
    expect(pooled.volatilityModel).toBe("garch-t+ewma");
    // 150 own returns against 730 pooled: much closer to the pooled α (0.1) than to the true 0.3.
    expect(engine.parameters!.alpha).toBeLessThan(0.2);
  });

  it("has a consistent unit-variance Student-t CDF and quantile", () => {
    for (const nu of [3, 5, 30]) {
      for (const p of [0.05, 0.25, 0.5, 0.9])
        expect(unitStudentCdf(unitStudentQuantile(p, nu), nu)).toBeCloseTo(p, 6);
    }
    expect(unitStudentQuantile(0.9, 200)).toBeCloseTo(1.2816, 2);
  });
});

describe("on a constant-volatility random walk", () => {
  it("no model beats the right constant-volatility interval by more than noise, and coverage holds", () => {
    const sigma = 0.02;
    const prices = randomWalk(9, 1500, sigma);
    const report = backtest(prices, 1, { warmup: 250 });
    // The oracle interval: ±1.2816 σ, known volatility.
    const z = 1.2815515655446004;
    let oracle = 0;
    for (const f of report.forecasts) {
      const lower = f.price * Math.exp(-z * sigma);
      const upper = f.price * Math.exp(z * sigma);
      oracle +=
        (upper - lower + 10 * (Math.max(lower - f.realised, 0) + Math.max(f.realised - upper, 0))) / f.price;
    }
    oracle /= report.forecasts.length;
    const ratio = report.model.winkler / oracle;
    expect(ratio).toBeGreaterThan(0.97);
    expect(ratio).toBeLessThan(1.06);
    for (const b of Object.values(report.baselines)) expect(b.winkler / oracle).toBeGreaterThan(0.97);
    expect(report.model.coverage).toBeGreaterThan(0.76);
    expect(report.model.coverage).toBeLessThan(0.84);
  });
});

describe("bad ticks", () => {
  it("a +17 % / reverted close barely moves the volatility and the next forecast's confidence", () => {
    const clean = fxLike(5, 700, 0);
    const dirty = [...clean];
    dirty[650] = dirty[650]! * 1.17;
    const run = (prices: number[]) => {
      const f = new Forecaster(1, DEFAULT_MODEL_PARAMETERS);
      for (const [day, price] of prices.slice(0, 652).entries()) f.observe({ day, price });
      return f.latest!;
    };
    const a = run(clean);
    const b = run(dirty);
    expect(Math.abs(a.confidence - b.confidence)).toBeLessThan(0.02);
    expect(Math.abs(a.quantiles[5]! - b.quantiles[5]!)).toBeLessThan(0.5 * a.quantiles[5]!);
  });

  it("the filter clips an outlier and undoes it when the next close reverses it", () => {
    const plain = new EwmaVolatility(0.94);
    const filtered = new BadTickFilter(new EwmaVolatility(0.94), 6);
    const normal = seededNormal(1);
    for (let i = 0; i < 300; i++) {
      const r = 0.005 * normal();
      plain.update(r);
      filtered.update(r, 1);
    }
    const before = filtered.engine.nextVariance;
    filtered.update(0.157, 1);
    expect(filtered.engine.nextVariance).toBeLessThan(before * (1 + 0.06 * 36) + 1e-12);
    filtered.update(-0.139, 1);
    // Undone: the variance is what a single 1.8 % two-day move gives.
    expect(filtered.engine.nextVariance).toBeLessThan(before * 2);
  });
});

describe("confidence recalibration", () => {
  it("the isotonic map is monotone, bounded and robust to one outlier", () => {
    const uniform = seededUniform(8);
    const calibrator = new IsotonicCalibrator(500, 30);
    for (let i = 0; i < 800; i++) {
      const raw = uniform();
      calibrator.record(raw, uniform() < raw * 0.8);
    }
    const grid = Array.from({ length: 101 }, (_, i) => i / 100);
    const mapped = grid.map((p) => calibrator.calibrate(p));
    for (let i = 1; i < mapped.length; i++) expect(mapped[i]!).toBeGreaterThanOrEqual(mapped[i - 1]!);
    expect(calibrator.calibrate(0.9)).toBeLessThan(0.85);
    const before = calibrator.calibrate(0.99);
    calibrator.record(0.999, false);
    expect(Math.abs(calibrator.calibrate(0.99) - before)).toBeLessThan(0.06);
  });

  it("does not jump to certainty beyond the probabilities it has seen", () => {
    const uniform = seededUniform(12);
    const calibrator = new IsotonicCalibrator(2000, 0);
    for (let i = 0; i < 1000; i++) {
      const raw = 0.1 + 0.2 * uniform();
      calibrator.record(raw, uniform() < raw);
    }
    // The top few outcomes happened to hit; a raw 0.35 is still nowhere near certain.
    calibrator.record(0.31, true);
    calibrator.record(0.32, true);
    expect(calibrator.calibrate(0.35)).toBeLessThan(0.5);
    expect(calibrator.calibrate(0.35)).toBeGreaterThan(calibrator.calibrate(0.3));
  });

  it("pool-adjacent-violators gives non-decreasing block means", () => {
    const blocks = poolAdjacentViolators([
      { x: 0.1, y: 1 },
      { x: 0.2, y: 0 },
      { x: 0.3, y: 0 },
      { x: 0.4, y: 1 },
    ]);
    expect(blocks.map((b) => b.y)).toEqual([1 / 3, 1]);
  });

  it("keeps the confidence calibrated on a low-volatility FX-like series with bad ticks", () => {
    const prices = fxLike(11, 1500, 5);
    const report = backtest(prices, 1, { warmup: 250 });
    expect(report.model.calibrationError).toBeLessThan(0.03);
    expect(report.model.brier).toBeLessThanOrEqual(report.baselines["ewma-fhs"].brier + 1e-3);
  });
});

describe("regime widths and residuals", () => {
  it("widens the regime that misses and leaves the others", () => {
    const widths = new RegimeWidths(0.2, 0.05, 0.8, 1.25);
    expect([widths.regimeOf(0.5), widths.regimeOf(1), widths.regimeOf(2)]).toEqual([0, 1, 2]);
    for (let i = 0; i < 20; i++) widths.record(2, false);
    expect(widths.width(2)).toBeGreaterThan(1.5);
    expect(widths.width(0)).toBe(1);
  });

  it("centres the residual distribution at its median", () => {
    const residuals = new CenteredResiduals(100, 0);
    for (let i = 0; i < 99; i++) residuals.record(1 + i / 100);
    expect(residuals.quantile(0.5)).toBeCloseTo(0, 12);
    expect(residuals.cdf(0)).toBeCloseTo(0.5, 1);
  });
});
