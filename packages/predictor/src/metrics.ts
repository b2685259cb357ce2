import { HIT_TOLERANCE, INTERVAL_COVERAGE, QUANTILE_LEVELS } from "./parameters.js";

/** One forecast next to the price that was later realised. */
export interface ScoredForecast {
  /** Price at the forecast origin. */
  current: number;
  /** Point forecast (the median). */
  predicted: number;
  /** Lower end of the stated 80 % interval (the 10 % quantile). */
  lower: number;
  /** Upper end of the stated 80 % interval (the 90 % quantile). */
  upper: number;
  /** Prices at {@link QUANTILE_LEVELS} (absent: only the interval and the median are scored). */
  quantiles?: readonly number[];
  /** Stated probability that `realised` lands within ±5 % of `predicted`. */
  confidence: number;
  /** Price realised at the horizon. */
  realised: number;
}

/** Accuracy, calibration and proper scores of a set of forecasts. */
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
  /** Mean Winkler score of the 80 % interval, in units of the origin price; see {@link winklerScore}. */
  winkler: number;
  /** Mean pinball loss over the stated quantiles, in units of the origin price; see {@link pinballLoss}. */
  pinball: number;
  /** Mean Brier score of `confidence` for the ±5 % event. */
  brier: number;
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
  let winkler = 0;
  let pinball = 0;
  let brier = 0;
  const hits: boolean[] = [];
  for (const f of forecasts) {
    absolutePercentage += Math.abs(f.realised - f.predicted) / f.realised;
    direction += directionScore(f);
    if (f.realised >= f.lower && f.realised <= f.upper) covered += 1;
    confidence += f.confidence;
    winkler += winklerScore(f);
    pinball += pinballLoss(f);
    const hit = isHit(f);
    brier += (f.confidence - (hit ? 1 : 0)) ** 2;
    hits.push(hit);
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
    winkler: winkler / n,
    pinball: pinball / n,
    brier: brier / n,
  };
}

/**
 * Winkler (interval) score of the 80 % interval in units of the origin price: width plus
 * 2/α times the distance by which the outcome falls outside (α = 0.2). Lower is better; proper for
 * the 10 % and 90 % quantiles.
 */
export function winklerScore(f: Pick<ScoredForecast, "current" | "lower" | "upper" | "realised">): number {
  const alpha = 1 - INTERVAL_COVERAGE;
  const below = Math.max(f.lower - f.realised, 0);
  const above = Math.max(f.realised - f.upper, 0);
  return (f.upper - f.lower + (2 / alpha) * (below + above)) / f.current;
}

/**
 * Mean pinball (quantile) loss over {@link QUANTILE_LEVELS} in units of the origin price; twice it
 * approximates the CRPS. Forecasts without quantiles are scored on the 10/50/90 % ones they state.
 */
export function pinballLoss(f: ScoredForecast): number {
  const pairs: [number, number][] = f.quantiles
    ? QUANTILE_LEVELS.map((p, i) => [p, f.quantiles![i]!])
    : [
        [0.1, f.lower],
        [0.5, f.predicted],
        [0.9, f.upper],
      ];
  let total = 0;
  for (const [p, q] of pairs) {
    const u = f.realised - q;
    total += Math.max(p * u, (p - 1) * u);
  }
  return total / pairs.length / f.current;
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

/**
 * Diebold-Mariano t statistic of the loss differentials d = loss(model) − loss(baseline): mean(d)
 * over its standard error with a Newey-West (Bartlett) long-run variance of `lag` lags (h − 1 for
 * h-day forecasts whose errors overlap; at least 0). Negative: the model's loss is lower. 0 when
 * the differentials have no variance.
 */
export function dieboldMarianoT(differentials: readonly number[], lag: number): number {
  const n = differentials.length;
  if (n < 2) return 0;
  const mean = differentials.reduce((a, b) => a + b, 0) / n;
  const centred = differentials.map((d) => d - mean);
  const autocovariance = (k: number) => {
    let sum = 0;
    for (let t = k; t < n; t++) sum += centred[t]! * centred[t - k]!;
    return sum / n;
  };
  let longRun = autocovariance(0);
  for (let k = 1; k <= Math.min(lag, n - 1); k++) longRun += 2 * (1 - k / (lag + 1)) * autocovariance(k);
  return longRun > 0 ? mean / Math.sqrt(longRun / n) : 0;
}
