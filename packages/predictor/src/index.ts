export { type BacktestOptions, type BacktestReport, backtest, DEFAULT_WARMUP } from "./backtest.js";
export { BACKTEST_USAGE, formatReport, runBacktestCommand } from "./cli.js";
export { PriceCsvError, type PriceRow, parsePriceCsv, rowsToPricePoints } from "./csv.js";
export { toDailyCloses } from "./daily.js";
export { InsufficientHistoryError } from "./errors.js";
export {
  CALIBRATION_BINS,
  calibrationError,
  directionScore,
  type ForecastMetrics,
  isHit,
  type ScoredForecast,
  scoreForecasts,
} from "./metrics.js";
export type { ModelOptions } from "./model-options.js";
export {
  DEFAULT_MODEL_PARAMETERS,
  HIT_TOLERANCE,
  INTERVAL_COVERAGE,
  MIN_HISTORY_DAYS,
  MODEL_VERSION,
  type ModelParameters,
} from "./parameters.js";
export { predict } from "./predict.js";
export type { DailyClose, Prediction, PricePoint } from "./types.js";
