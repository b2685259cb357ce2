import { RandomWalkBaseline } from "./baseline.js";
import { consecutiveCloses, toDailyCloses } from "./daily.js";
import { InsufficientHistoryError } from "./errors.js";
import { Forecaster, type LogForecast } from "./forecaster.js";
import { type ForecastMetrics, type ScoredForecast, scoreForecasts } from "./metrics.js";
import { assertHorizon, type ModelOptions, resolveParameters } from "./model-options.js";
import { MIN_HISTORY_DAYS, MODEL_VERSION } from "./parameters.js";
import type { DailyClose, PricePoint } from "./types.js";

/** Options of {@link backtest}. */
export interface BacktestOptions extends ModelOptions {
  /** Score every `step`-th forecast origin (default 1: every day). Thinning never changes a forecast. */
  step?: number;
  /** Daily closes known at the first scored origin (default {@link DEFAULT_WARMUP}, at least {@link MIN_HISTORY_DAYS}). */
  warmup?: number;
}

/** Walk-forward results of the model and of the random-walk baseline for one horizon. */
export interface BacktestReport {
  /** Forecast horizon in days. */
  horizon: number;
  /** Origin spacing used. */
  step: number;
  /** Daily closes known at the first scored origin. */
  warmup: number;
  /** Model that was tested. */
  modelVersion: string;
  /** Metrics of the model. */
  model: ForecastMetrics;
  /** Metrics of the random walk (last price, historical-volatility normal interval and confidence). */
  baseline: ForecastMetrics;
}

/** Closes known at the first scored origin unless told otherwise: one quarter. */
export const DEFAULT_WARMUP = 90;

/**
 * Walk-forward backtest at one horizon. At every origin t (from the `warmup`-th close on, every
 * `step`-th) the model forecasts the close `horizon` days later from closes up to t only, exactly
 * as {@link predict} would from that prefix; origins whose target day is not in the series are
 * skipped. The random-walk baseline is scored on the same origins.
 *
 * `series` is either price points (sampled at daily closes like {@link predict} does) or plain
 * daily closes of consecutive days. Throws {@link InsufficientHistoryError} when no origin can be
 * scored, a RangeError for invalid options or prices, and a TypeError for a series mixing numbers
 * and price points.
 */
export function backtest(
  series: readonly PricePoint[] | readonly number[],
  horizon: number,
  options?: BacktestOptions,
): BacktestReport {
  assertHorizon(horizon);
  const step = options?.step ?? 1;
  const warmup = options?.warmup ?? DEFAULT_WARMUP;
  if (!(Number.isSafeInteger(step) && step >= 1)) {
    throw new RangeError(`step must be a whole number >= 1, got ${step}`);
  }
  if (!(Number.isSafeInteger(warmup) && warmup >= MIN_HISTORY_DAYS)) {
    throw new RangeError(`warmup must be a whole number >= ${MIN_HISTORY_DAYS}, got ${warmup}`);
  }
  const closes = toCloses(series);
  const priceByDay = new Map(closes.map((c) => [c.day, c.price]));
  const model = new Forecaster(horizon, resolveParameters(options));
  const baseline = new RandomWalkBaseline(horizon);
  const modelScores: ScoredForecast[] = [];
  const baselineScores: ScoredForecast[] = [];
  closes.forEach((close, index) => {
    model.observe(close);
    baseline.observe(close);
    const origin = index + 1 - warmup;
    if (origin < 0 || origin % step !== 0) return;
    const realised = priceByDay.get(close.day + horizon);
    if (realised === undefined) return;
    modelScores.push(score(model.latest!, realised));
    baselineScores.push(score(baseline.latest!, realised));
  });
  if (modelScores.length === 0) throw new InsufficientHistoryError(warmup + horizon, closes.length);
  return {
    horizon,
    step,
    warmup,
    modelVersion: MODEL_VERSION,
    model: scoreForecasts(modelScores),
    baseline: scoreForecasts(baselineScores),
  };
}

function toCloses(series: readonly PricePoint[] | readonly number[]): DailyClose[] {
  const points = series.filter((x): x is PricePoint => typeof x === "object");
  if (points.length === series.length) return toDailyCloses(points);
  const numbers = series.filter((x): x is number => typeof x === "number");
  if (numbers.length === series.length) return consecutiveCloses(numbers);
  throw new TypeError("series must be all price points or all numbers");
}

function score(forecast: LogForecast, realised: number): ScoredForecast {
  const current = forecast.originPrice;
  return {
    current,
    predicted: current * Math.exp(forecast.change),
    lower: current * Math.exp(forecast.lower),
    upper: current * Math.exp(forecast.upper),
    confidence: forecast.confidence,
    realised,
  };
}
