import { ConfidenceCalibrator } from "./confidence-calibration.js";
import { DampedTrend, type DriftModel, EwmaDrift } from "./drift.js";
import { ResidualDistribution } from "./interval-calibration.js";
import { HIT_TOLERANCE, INTERVAL_COVERAGE, type ModelParameters } from "./parameters.js";
import { DriftSelector } from "./selector.js";
import type { DailyClose } from "./types.js";
import { VolatilityTracker } from "./volatility.js";

/** A forecast in log space, relative to the latest close. */
export interface LogForecast {
  /** Price of the close the forecast starts from. */
  originPrice: number;
  /** Point forecast of the log change over the horizon. */
  change: number;
  /** Lower end of the 80 % interval of the log change. */
  lower: number;
  /** Upper end of the 80 % interval of the log change. */
  upper: number;
  /** Calibrated probability that the realised price lands within ±5 % of the point forecast. */
  confidence: number;
}

interface PendingForecast {
  originLogPrice: number;
  candidates: number[];
  change: number;
  scale: number;
  lower: number;
  upper: number;
  rawConfidence: number;
}

const LOG_BAND_LOW = Math.log(1 - HIT_TOLERANCE);
const LOG_BAND_HIGH = Math.log(1 + HIT_TOLERANCE);

/**
 * The online forecasting model for one horizon. Closes are fed in order; after each close the model
 * issues a forecast for `horizon` days later, and when that day's close arrives the forecast is
 * scored and every learned piece (drift selection, residual distribution, confidence calibration)
 * is updated. Nothing ever sees a price later than the forecast it serves, so the forecast after
 * close t depends only on closes up to t: running it over a history and taking the last forecast is
 * the prediction, and recording every forecast along the way is an honest walk-forward backtest.
 *
 * Model, per horizon h:
 * - variance of the h-day log change: EWMA variance of daily log returns reverting geometrically to
 *   a slow EWMA (GARCH-like term structure);
 * - point forecast: "no change" unless a drift candidate (EWMA drift, damped-trend Holt smoothing of
 *   the log price) has beaten it significantly on this series' own resolved forecasts;
 * - 80 % interval: empirical quantiles of past standardised residuals at an adaptive level (the
 *   adaptation step is capped at `coverageLoopGain / h` because the feedback arrives h days late,
 *   and the normal prior's pseudo-count grows with √h because overlapping residuals are correlated);
 * - confidence: the ±5 % band's probability under that residual distribution, recalibrated by a
 *   logistic map fitted on past (probability, hit) outcomes.
 */
export class Forecaster {
  readonly #horizon: number;
  readonly #volatility: VolatilityTracker;
  readonly #candidates: DriftModel[];
  readonly #selector: DriftSelector;
  readonly #residuals: ResidualDistribution;
  readonly #calibrator: ConfidenceCalibrator;
  readonly #pending = new Map<number, PendingForecast>();
  #last: DailyClose | undefined;
  #latest: LogForecast | undefined;

  /**
   * @param horizon forecast horizon in whole days (>= 1).
   * @param parameters model constants.
   */
  constructor(horizon: number, parameters: Readonly<ModelParameters>) {
    this.#horizon = horizon;
    this.#volatility = new VolatilityTracker(
      parameters.volatilityHalfLife,
      parameters.longRunHalfLife,
      parameters.volatilityPersistence,
    );
    this.#candidates = [
      new EwmaDrift(parameters.driftHalfLife),
      new DampedTrend(parameters.trendAlpha, parameters.trendBeta, parameters.trendDamping),
    ];
    this.#selector = new DriftSelector(
      this.#candidates.length,
      horizon,
      parameters.selectionHalfLife,
      parameters.selectionThreshold,
    );
    this.#residuals = new ResidualDistribution(
      INTERVAL_COVERAGE,
      Math.min(parameters.coverageAdaptationRate, parameters.coverageLoopGain / horizon),
      parameters.residualPriorWeight * Math.sqrt(horizon),
    );
    this.#calibrator = new ConfidenceCalibrator(parameters.confidenceRidge);
  }

  /** The forecast issued after the latest close (undefined until two closes have been seen). */
  get latest(): LogForecast | undefined {
    return this.#latest;
  }

  /** Feeds the next close; its day must be later than the previous close's day. */
  observe(close: DailyClose): void {
    const last = this.#last;
    if (last !== undefined && close.day <= last.day) {
      throw new RangeError(`closes must be in increasing day order (day ${close.day} after ${last.day})`);
    }
    const logPrice = Math.log(close.price);
    const gap = last === undefined ? 1 : close.day - last.day;
    if (last !== undefined) this.#volatility.update(logPrice - Math.log(last.price), gap);
    for (const candidate of this.#candidates) candidate.update(logPrice, gap);
    this.#resolve(close.day, logPrice);
    this.#last = close;
    this.#latest = this.#volatility.ready ? this.#issue(close, logPrice) : undefined;
  }

  /** Scores the forecast that targeted `day` (if any) and drops forecasts whose target day was skipped. */
  #resolve(day: number, logPrice: number): void {
    for (const [target, forecast] of this.#pending) {
      if (target > day) continue;
      this.#pending.delete(target);
      if (target < day) continue;
      const realised = logPrice - forecast.originLogPrice;
      const error = realised - forecast.change;
      this.#selector.record(realised, forecast.candidates);
      this.#residuals.record(
        error / forecast.scale,
        realised >= forecast.lower && realised <= forecast.upper,
      );
      this.#calibrator.record(forecast.rawConfidence, error >= LOG_BAND_LOW && error <= LOG_BAND_HIGH);
    }
  }

  #issue(close: DailyClose, logPrice: number): LogForecast {
    const horizon = this.#horizon;
    const candidates = this.#candidates.map((c) => c.forecast(horizon));
    const choice = this.#selector.choose();
    const change = choice.index < 0 ? 0 : choice.weight * candidates[choice.index]!;
    const scale = Math.sqrt(this.#volatility.horizonVariance(horizon));
    const bounds = this.#residuals.bounds();
    const lower = change + bounds.lower * scale;
    const upper = change + bounds.upper * scale;
    const rawConfidence = this.#residuals.probabilityBetween(LOG_BAND_LOW / scale, LOG_BAND_HIGH / scale);
    this.#pending.set(close.day + horizon, {
      originLogPrice: logPrice,
      candidates,
      change,
      scale,
      lower,
      upper,
      rawConfidence,
    });
    return {
      originPrice: close.price,
      change,
      lower,
      upper,
      confidence: this.#calibrator.calibrate(rawConfidence),
    };
  }
}
