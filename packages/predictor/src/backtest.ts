import { BASELINE_NAMES, type BaselineName, createBaseline } from "./baseline.js";
import { consecutiveCloses, toDailyCloses } from "./daily.js";
import { InsufficientHistoryError } from "./errors.js";
import { type DistributionForecaster, Forecaster, type LogForecast } from "./forecaster.js";
import {
  dieboldMarianoT,
  type ForecastMetrics,
  isHit,
  pinballLoss,
  type ScoredForecast,
  scoreForecasts,
  winklerScore,
} from "./metrics.js";
import { assertHorizon, type ModelOptions, resolveParameters } from "./model-options.js";
import { MIN_HISTORY_DAYS, MODEL_VERSION, QUANTILE_LEVELS } from "./parameters.js";
import type { DailyClose, PricePoint } from "./types.js";

/** Options of {@link backtest}. */
export interface BacktestOptions extends ModelOptions {
  /** Score every `step`-th forecast origin (default 1: every day). Thinning never changes a forecast. */
  step?: number;
  /** Daily closes known at the first scored origin (default {@link DEFAULT_WARMUP}, at least {@link MIN_HISTORY_DAYS}). */
  warmup?: number;
  /** Score only origins on or after this day (days since 1970-01-01 UTC); earlier ones still train every model. */
  fromDay?: number | undefined;
  /** Score only origins before this day. */
  beforeDay?: number | undefined;
}

/** One scored forecast of the model, with prices. */
export interface ForecastRecord {
  /** Day of the origin close (days since 1970-01-01 UTC). */
  originDay: number;
  /** Day of the realised close. */
  targetDay: number;
  /** Close at the origin. */
  price: number;
  /** Median (the point forecast). */
  median: number;
  /** Prices at {@link QUANTILE_LEVELS}. */
  quantiles: number[];
  confidence: number;
  probabilityUp: number;
  /** Close at the target day. */
  realised: number;
}

/** Coverage of the 80 % interval within one group of origins. */
export interface GroupCoverage {
  /** Origins in the group. */
  predictions: number;
  /** Coverage of the model. */
  model: number;
  /** Coverage of each baseline. */
  baselines: Record<BaselineName, number>;
}

/** Diebold-Mariano t statistics of the model against one baseline (negative: the model scores better). */
export interface DieboldMariano {
  /** On the Winkler score of the 80 % interval. */
  winkler: number;
  /** On the mean pinball loss. */
  pinball: number;
  /** On the Brier score of `confidence`. */
  brier: number;
}

/** Walk-forward results of the model and of the baselines for one horizon. */
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
  /** Metrics of each baseline on the same origins. */
  baselines: Record<BaselineName, ForecastMetrics>;
  /**
   * Coverage by tercile of the volatility at the origin (standard deviation of the last 30 daily log
   * returns; tercile bounds over the scored origins): calm, middle, turbulent.
   */
  coverageByVolatility: (GroupCoverage & { volatilityBelow: number })[];
  /** Coverage by calendar year of the origin. */
  coverageByYear: (GroupCoverage & { year: number })[];
  /** Model against each baseline, HAC lag = horizon. */
  dieboldMariano: Record<BaselineName, DieboldMariano>;
  /** Every scored forecast of the model. */
  forecasts: ForecastRecord[];
}

/** Closes known at the first scored origin unless told otherwise: one quarter. */
export const DEFAULT_WARMUP = 90;

const VOLATILITY_WINDOW = 30;

/**
 * Walk-forward backtest at one horizon. At every origin t (from the `warmup`-th close on, every
 * `step`-th, within [`fromDay`, `beforeDay`)) the model forecasts the close `horizon` days later
 * from closes up to t only, exactly as {@link predict} would from that prefix; origins whose target
 * day is not in the series are skipped. The baselines (random walk with 90-day volatility, EWMA
 * normal, EWMA filtered historical simulation, GARCH(1,1)-t) are scored on the same origins.
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
  const fromDay = options?.fromDay ?? Number.NEGATIVE_INFINITY;
  const beforeDay = options?.beforeDay ?? Number.POSITIVE_INFINITY;
  const closes = toCloses(series);
  const priceByDay = new Map(closes.map((c) => [c.day, c.price]));
  const model = new Forecaster(horizon, resolveParameters(options));
  const baselines = BASELINE_NAMES.map((name) => createBaseline(name, horizon));
  const modelScores: ScoredForecast[] = [];
  const baselineScores: ScoredForecast[][] = BASELINE_NAMES.map(() => []);
  const forecasts: ForecastRecord[] = [];
  const volatilities: number[] = [];
  closes.forEach((close, index) => {
    model.observe(close);
    for (const b of baselines) b.observe(close);
    const origin = index + 1 - warmup;
    if (origin < 0 || origin % step !== 0 || close.day < fromDay || close.day >= beforeDay) return;
    const realised = priceByDay.get(close.day + horizon);
    if (realised === undefined) return;
    const forecast = model.latest!;
    const scored = score(forecast, realised);
    modelScores.push(scored);
    baselines.forEach((b, i) => {
      baselineScores[i]!.push(score(latestOf(b), realised));
    });
    volatilities.push(trailingVolatility(closes, index));
    forecasts.push({
      originDay: close.day,
      targetDay: close.day + horizon,
      price: close.price,
      median: scored.predicted,
      quantiles: [...scored.quantiles!],
      confidence: forecast.confidence,
      probabilityUp: forecast.probabilityUp,
      realised,
    });
  });
  if (modelScores.length === 0) throw new InsufficientHistoryError(warmup + horizon, closes.length);
  const byName = <T>(values: (i: number) => T) =>
    Object.fromEntries(BASELINE_NAMES.map((name, i) => [name, values(i)])) as Record<BaselineName, T>;
  const coverage = (indices: readonly number[]): GroupCoverage => ({
    predictions: indices.length,
    model: covered(modelScores, indices),
    baselines: byName((i) => covered(baselineScores[i]!, indices)),
  });
  const sortedVolatility = [...volatilities].sort((a, b) => a - b);
  const bounds = [1 / 3, 2 / 3].map((q) => sortedVolatility[Math.floor(q * sortedVolatility.length)]!);
  const terciles: number[][] = [[], [], []];
  volatilities.forEach((v, i) => {
    terciles[v < bounds[0]! ? 0 : v < bounds[1]! ? 1 : 2]!.push(i);
  });
  const years = new Map<number, number[]>();
  forecasts.forEach((f, i) => {
    const year = new Date(f.originDay * 86_400_000).getUTCFullYear();
    years.set(year, [...(years.get(year) ?? []), i]);
  });
  return {
    horizon,
    step,
    warmup,
    modelVersion: MODEL_VERSION,
    model: scoreForecasts(modelScores),
    baselines: byName((i) => scoreForecasts(baselineScores[i]!)),
    coverageByVolatility: terciles.map((indices, t) => ({
      volatilityBelow: t < 2 ? bounds[t]! : Number.POSITIVE_INFINITY,
      ...coverage(indices),
    })),
    coverageByYear: [...years].map(([year, indices]) => ({ year, ...coverage(indices) })),
    dieboldMariano: byName((i) => ({
      winkler: dmOf(modelScores, baselineScores[i]!, winklerScore, horizon),
      pinball: dmOf(modelScores, baselineScores[i]!, pinballLoss, horizon),
      brier: dmOf(modelScores, baselineScores[i]!, brierScore, horizon),
    })),
    forecasts,
  };
}

function latestOf(forecaster: DistributionForecaster): LogForecast {
  const forecast = forecaster.latest;
  if (forecast === undefined) throw new Error("baseline has no forecast at a scored origin");
  return forecast;
}

function brierScore(f: ScoredForecast): number {
  return (f.confidence - (isHit(f) ? 1 : 0)) ** 2;
}

function dmOf(
  model: readonly ScoredForecast[],
  baseline: readonly ScoredForecast[],
  loss: (f: ScoredForecast) => number,
  lag: number,
): number {
  return dieboldMarianoT(
    model.map((f, i) => loss(f) - loss(baseline[i]!)),
    lag,
  );
}

function covered(scores: readonly ScoredForecast[], indices: readonly number[]): number {
  if (indices.length === 0) return Number.NaN;
  let inside = 0;
  for (const i of indices) {
    const f = scores[i]!;
    if (f.realised >= f.lower && f.realised <= f.upper) inside += 1;
  }
  return inside / indices.length;
}

/**
 * Standard deviation (zero mean) of the last 30 daily log returns up to close `index` (a return
 * over a gap of g days counts as r / √g): the volatility the coverage terciles are formed on.
 */
export function trailingVolatility(closes: readonly DailyClose[], index: number): number {
  let sum = 0;
  let count = 0;
  for (let i = Math.max(1, index - VOLATILITY_WINDOW + 1); i <= index; i++) {
    const r =
      Math.log(closes[i]!.price / closes[i - 1]!.price) / Math.sqrt(closes[i]!.day - closes[i - 1]!.day);
    sum += r * r;
    count += 1;
  }
  return count > 0 ? Math.sqrt(sum / count) : 0;
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
  const quantiles = forecast.quantiles.map((q) => current * Math.exp(q));
  return {
    current,
    predicted: current * Math.exp(forecast.change),
    lower: quantiles[QUANTILE_LEVELS.indexOf(0.1)]!,
    upper: quantiles[QUANTILE_LEVELS.indexOf(0.9)]!,
    quantiles,
    confidence: forecast.confidence,
    realised,
  };
}
