export {
  type BacktestOptions,
  type BacktestReport,
  backtest,
  DEFAULT_WARMUP,
  type DieboldMariano,
  type ForecastRecord,
  type GroupCoverage,
} from "./backtest.js";
export { BASELINE_NAMES, type BaselineName } from "./baseline.js";
export { BACKTEST_USAGE, formatReport, jsonReport, runBacktestCommand } from "./cli.js";
export { PriceCsvError, type PriceRow, parsePriceCsv, rowsToPricePoints } from "./csv.js";
export { toDailyCloses } from "./daily.js";
export { InsufficientHistoryError } from "./errors.js";
export { fitGarch, type GarchParameters, garchLogLikelihood } from "./garch.js";
export {
  CALIBRATION_BINS,
  calibrationError,
  dieboldMarianoT,
  directionScore,
  type ForecastMetrics,
  isHit,
  pinballLoss,
  type ScoredForecast,
  scoreForecasts,
  winklerScore,
} from "./metrics.js";
export type { ModelOptions } from "./model-options.js";
export {
  DEFAULT_MODEL_PARAMETERS,
  HIT_TOLERANCE,
  INTERVAL_COVERAGE,
  MIN_HISTORY_DAYS,
  MODEL_VERSION,
  type ModelParameters,
  QUANTILE_LEVELS,
} from "./parameters.js";
export { predict } from "./predict.js";
export { ForecastBusyError, ForecastThread, type ForecastThreadOptions } from "./thread/forecast-thread.js";
export type { DailyClose, Prediction, PricePoint, PriceQuantiles } from "./types.js";
