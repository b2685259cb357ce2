import { normalQuantile } from "./math.js";
import { calibrationError } from "./metrics.js";
import { INTERVAL_COVERAGE } from "./parameters.js";
import { seededNormal } from "./testing/synthetic.js";

/** Median and 90th percentile of a simulated statistic. */
export interface NoiseQuantiles {
  median: number;
  p90: number;
}

/** What a perfectly calibrated forecaster scores by chance alone on a given set of origins. */
export interface PerfectForecastNoise {
  /** Calibration error (see {@link calibrationError}) of the stated confidences against simulated outcomes. */
  calibrationError: NoiseQuantiles;
  /** Largest |coverage − 80 %| of an exact 80 % interval over the groups of origins. */
  coverageDeviation: NoiseQuantiles;
}

/** Options of {@link perfectForecastNoise}. */
export interface NoiseOptions {
  /** Simulated histories (default 300). */
  draws?: number;
  /** Seed of the deterministic generator (default 1). */
  seed?: number;
}

/**
 * Sampling noise of the calibration error and of group coverage for a forecaster that is right by
 * construction, on origins one day apart issuing h-day forecasts. Each simulated history draws iid
 * standard normal daily shocks eₜ; the outcome of origin t is zₜ = (eₜ₊₁ + … + eₜ₊ₕ) / √h, so
 * successive outcomes overlap exactly like h-day changes of a random walk (correlation 1 − k/h at
 * lag k). Origin t's ±5 % event with stated probability pₜ happens when |zₜ| < Φ⁻¹((1 + pₜ) / 2), and
 * its 80 % interval covers when |zₜ| < Φ⁻¹(0.9): both true probabilities are the stated ones.
 * Volatility clustering, which makes real outcomes more dependent still, is left out, so these
 * are lower bounds of the noise. Deterministic for a given seed.
 *
 * @param confidences stated probabilities of the ±5 % event, one per origin, in origin order.
 * @param groups indices of the origins in each group whose coverage is reported (e.g. volatility terciles).
 * @param horizon forecast horizon in days (the overlap of successive outcomes).
 */
export function perfectForecastNoise(
  confidences: readonly number[],
  groups: readonly (readonly number[])[],
  horizon: number,
  options: NoiseOptions = {},
): PerfectForecastNoise {
  const draws = options.draws ?? 300;
  const normal = seededNormal(options.seed ?? 1);
  const bands = confidences.map((p) => normalQuantile((1 + Math.min(p, 1 - 1e-9)) / 2));
  const interval = normalQuantile((1 + INTERVAL_COVERAGE) / 2);
  const errors: number[] = [];
  const deviations: number[] = [];
  for (let d = 0; d < draws; d++) {
    const outcomes = overlappingOutcomes(confidences.length, horizon, normal);
    errors.push(
      calibrationError(
        confidences,
        outcomes.map((z, i) => Math.abs(z) < bands[i]!),
      ),
    );
    let largest = 0;
    for (const group of groups) {
      if (group.length === 0) continue;
      const covered = group.filter((i) => Math.abs(outcomes[i]!) < interval).length;
      largest = Math.max(largest, Math.abs(covered / group.length - INTERVAL_COVERAGE));
    }
    deviations.push(largest);
  }
  return { calibrationError: quantiles(errors), coverageDeviation: quantiles(deviations) };
}

/** n outcomes zₜ = (sum of the next h iid standard normal shocks) / √h, by a running sum. */
function overlappingOutcomes(n: number, horizon: number, normal: () => number): number[] {
  const shocks = Array.from({ length: n + horizon }, normal);
  const outcomes: number[] = [];
  let sum = 0;
  for (let i = 0; i < horizon; i++) sum += shocks[i]!;
  for (let t = 0; t < n; t++) {
    outcomes.push(sum / Math.sqrt(horizon));
    sum += shocks[t + horizon]! - shocks[t]!;
  }
  return outcomes;
}

function quantiles(values: number[]): NoiseQuantiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.floor(p * (sorted.length - 1))]!;
  return { median: at(0.5), p90: at(0.9) };
}
