import { toDailyCloses } from "./daily.js";
import { InsufficientHistoryError } from "./errors.js";
import { Forecaster } from "./forecaster.js";
import { assertHorizon, type ModelOptions, resolveParameters } from "./model-options.js";
import { MIN_HISTORY_DAYS, MODEL_VERSION, QUANTILE_LEVELS } from "./parameters.js";
import type { Prediction, PricePoint, PriceQuantiles } from "./types.js";

/**
 * Forecasts the price `horizonDays` after the latest point of `history`.
 *
 * The history is sampled at daily closes (last observation per UTC day, the latest price closing
 * the current day); the model is then run walk-forward over those closes, learning its drift
 * choice, residual distribution and confidence calibration from this series alone, and its final
 * forecast is returned. Deterministic: the same inputs always give the same prediction.
 *
 * Throws {@link InsufficientHistoryError} with fewer than {@link MIN_HISTORY_DAYS} daily closes,
 * and a RangeError for a horizon that is not a whole number of days >= 1 or an invalid point.
 */
export function predict(
  history: readonly PricePoint[],
  horizonDays: number,
  options?: ModelOptions,
): Prediction {
  assertHorizon(horizonDays);
  const closes = toDailyCloses(history);
  if (closes.length < MIN_HISTORY_DAYS) throw new InsufficientHistoryError(MIN_HISTORY_DAYS, closes.length);
  const forecaster = new Forecaster(horizonDays, resolveParameters(options));
  for (const close of closes) forecaster.observe(close);
  const forecast = forecaster.latest!;
  const currentPrice = forecast.originPrice;
  const quantiles = priceQuantiles(currentPrice, forecast.quantiles);
  return {
    currentPrice,
    time: history.reduce((latest, point) => Math.max(latest, point.time), Number.NEGATIVE_INFINITY),
    horizonDays,
    predictedPrice: currentPrice * Math.exp(forecast.change),
    lower: quantiles["10"],
    upper: quantiles["90"],
    quantiles,
    confidence: forecast.confidence,
    probabilityUp: forecast.probabilityUp,
    modelVersion: MODEL_VERSION,
  };
}

/** Log-change quantiles at {@link QUANTILE_LEVELS} as prices keyed by percent. */
export function priceQuantiles(currentPrice: number, logQuantiles: readonly number[]): PriceQuantiles {
  return Object.fromEntries(
    QUANTILE_LEVELS.map((p, i) => [String(Math.round(p * 100)), currentPrice * Math.exp(logQuantiles[i]!)]),
  ) as unknown as PriceQuantiles;
}
