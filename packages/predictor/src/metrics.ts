import { HIT_TOLERANCE } from "./parameters.js";

/** One forecast next to the price that was later realised. */
export interface ScoredForecast {
  /** Price at the forecast origin. */
  current: number;
  /** Point forecast. */
  predicted: number;
  /** Lower end of the stated 80 % interval. */
  lower: number;
  /** Upper end of the stated 80 % interval. */
  upper: number;
  /** Stated probability that `realised` lands within ±5 % of `predicted`. */
  confidence: number;
  /** Price realised at the horizon. */
  realised: number;
}

/** Accuracy and calibration of a set of forecasts. */
export interface ForecastMetrics {
  /** Number of forecasts scored. */
  predictions: number;
  /** Mean absolute percentage error of the point forecast, mean(|realised - predicted| / realised), as a fraction. */
  mape: number;
  /** Share of forecasts that called the direction of the move right; see {@link directionScore}. */
  directionalAccuracy: number;
  /** Share of realised prices inside the stated 80 % interval (bounds included). */
  coverage: number;
  /** Expected calibration error of `confidence`; see {@link calibrationError}. */
  calibrationError: number;
  /** Mean stated confidence. */
  meanConfidence: number;
  /** Share of realised prices within ±5 % of the point forecast. */
  hitRate: number;
}

/** Number of equal-width confidence bins used by {@link calibrationError}. */
export const CALIBRATION_BINS = 10;

/**
 * Scores a non-empty set of forecasts against their outcomes. Throws a RangeError when empty.
 */
export function scoreForecasts(forecasts: readonly ScoredForecast[]): ForecastMetrics {
  const n = forecasts.length;
  if (n === 0) throw new RangeError("no forecasts to score");
  let absolutePercentage = 0;
  let direction = 0;
  let covered = 0;
  let confidence = 0;
  const hits: boolean[] = [];
  for (const f of forecasts) {
    absolutePercentage += Math.abs(f.realised - f.predicted) / f.realised;
    direction += directionScore(f);
    if (f.realised >= f.lower && f.realised <= f.upper) covered += 1;
    confidence += f.confidence;
    hits.push(isHit(f));
  }
  const hitCount = hits.filter(Boolean).length;
  return {
    predictions: n,
    mape: absolutePercentage / n,
    directionalAccuracy: direction / n,
    coverage: covered / n,
    calibrationError: calibrationError(
      forecasts.map((f) => f.confidence),
      hits,
    ),
    meanConfidence: confidence / n,
    hitRate: hitCount / n,
  };
}

/** Whether the realised price is within ±5 % of the point forecast. */
export function isHit(f: Pick<ScoredForecast, "predicted" | "realised">): boolean {
  return Math.abs(f.realised / f.predicted - 1) <= HIT_TOLERANCE;
}

/**
 * Direction credit of one forecast: 1 when the forecast move (predicted - current) and the realised
 * move (realised - current) have the same non-zero sign, 0 when they differ, and 0.5 when the
 * forecast is "no change" (it makes no call, so it scores what a coin toss would).
 */
export function directionScore(f: Pick<ScoredForecast, "current" | "predicted" | "realised">): number {
  const called = Math.sign(f.predicted - f.current);
  if (called === 0) return 0.5;
  return called === Math.sign(f.realised - f.current) ? 1 : 0;
}

/**
 * Expected calibration error: the confidences are put into {@link CALIBRATION_BINS} equal-width bins
 * over [0, 1] (bin k holds [k/10, (k+1)/10), the last bin includes 1); for each non-empty bin the
 * absolute gap between its mean confidence and its observed hit rate is taken; the result is the
 * average of those gaps weighted by bin counts, i.e. Σ_bins (n_bin / n) · |mean confidence - hit rate|.
 * Returns 0 for no forecasts.
 */
export function calibrationError(confidences: readonly number[], hits: readonly boolean[]): number {
  const sums = new Array<number>(CALIBRATION_BINS).fill(0);
  const hitCounts = new Array<number>(CALIBRATION_BINS).fill(0);
  confidences.forEach((c, i) => {
    const bin = Math.min(CALIBRATION_BINS - 1, Math.max(0, Math.floor(c * CALIBRATION_BINS)));
    sums[bin]! += c;
    if (hits[i]) hitCounts[bin]! += 1;
  });
  const n = confidences.length;
  if (n === 0) return 0;
  return sums.reduce((total, sum, bin) => total + Math.abs(sum - hitCounts[bin]!), 0) / n;
}
