import { BiasCorrectedAverage } from "./average.js";
import { DampedTrend, type DriftModel, EwmaDrift } from "./drift.js";
import { IsotonicCalibrator } from "./isotonic.js";
import {
  HIT_TOLERANCE,
  halfLifeDecay,
  INTERVAL_COVERAGE,
  type ModelParameters,
  QUANTILE_LEVELS,
} from "./parameters.js";
import { CenteredResiduals, RegimeWidths } from "./residuals.js";
import { DriftSelector } from "./selector.js";
import type { DailyClose } from "./types.js";
import {
  BadTickFilter,
  CombinedVolatility,
  EwmaVolatility,
  GarchVolatility,
  HarVolatility,
  type VolatilityEngine,
} from "./volatility.js";

/** A predictive distribution of the log change from the latest close to `horizon` days later. */
export interface LogForecast {
  /** Price of the close the forecast starts from. */
  originPrice: number;
  /** Median of the log change (the point forecast). */
  change: number;
  /** Log change at each of {@link QUANTILE_LEVELS}, ascending. */
  quantiles: number[];
  /** Probability that the price lands within ±5 % of the median price. */
  confidence: number;
  /** Probability that the price ends above the origin price. */
  probabilityUp: number;
}

/** Something that issues a {@link LogForecast} after each close it is fed. */
export interface DistributionForecaster {
  /** Feeds the next close (days in increasing order). */
  observe(close: DailyClose): void;
  /** The forecast issued after the latest close, if any. */
  readonly latest: LogForecast | undefined;
}

interface PendingForecast {
  originLogPrice: number;
  candidates: number[];
  change: number;
  scale: number;
  lower: number;
  upper: number;
  regime: number;
  rawConfidence: number;
}

const LOG_BAND_LOW = Math.log(1 - HIT_TOLERANCE);
const LOG_BAND_HIGH = Math.log(1 + HIT_TOLERANCE);
const LOWER_INDEX = QUANTILE_LEVELS.indexOf(0.1);
const UPPER_INDEX = QUANTILE_LEVELS.indexOf(0.9);

/**
 * The engine's h-day variance pulled towards the long-run daily variance `longRun`: the mean daily
 * variance over the horizon keeps the share (1 − φʰ) / (h·(1 − φ)) of its distance from the
 * long-run level (the mean of φᵏ over the horizon, φ the per-day decay; φ = 1 leaves it unchanged).
 */
export function revertedHorizonVariance(
  variance: number,
  longRun: number,
  horizon: number,
  decay: number,
): number {
  if (decay >= 1) return variance;
  const kept = (1 - decay ** horizon) / (horizon * (1 - decay));
  return horizon * (longRun + kept * (variance / horizon - longRun));
}

/** The conditional-variance engine named by the parameters. */
export function volatilityEngine(parameters: Readonly<ModelParameters>): VolatilityEngine {
  const garch = () =>
    new GarchVolatility({
      refitEvery: parameters.garchRefitEvery,
      poolingCount: parameters.garchPoolingCount,
    });
  const har = () =>
    new HarVolatility({ refitEvery: parameters.garchRefitEvery, poolingCount: parameters.garchPoolingCount });
  switch (parameters.volatilityModel) {
    case "ewma":
      return new EwmaVolatility(parameters.ewmaDecay);
    case "garch-t":
      return garch();
    case "garch-t+ewma":
      return new CombinedVolatility([garch(), new EwmaVolatility(parameters.ewmaDecay)]);
    case "har":
      return har();
    case "garch-t+har":
      return new CombinedVolatility([garch(), har()]);
    case "garch-t+ewma+har":
      return new CombinedVolatility([garch(), new EwmaVolatility(parameters.ewmaDecay), har()]);
  }
}

/**
 * The online forecasting model for one horizon. Closes are fed in order; after each close the model
 * issues a predictive distribution for `horizon` days later, and when that day's close arrives the
 * forecast is scored and every learned piece is updated. Nothing ever sees a price later than the
 * forecast it serves, so running it over a history and taking the last forecast is the prediction,
 * and recording every forecast along the way is an honest walk-forward backtest.
 *
 * Model, per horizon h:
 * - scale: √(variance of the h-day log change) from GARCH(1,1)-t fitted by maximum likelihood
 *   (pooled shape for short histories), EWMA or HAR, fed through a bad-tick filter, and pulled
 *   towards the long-run variance level over the horizon;
 * - median: "no change" unless a drift candidate has beaten it significantly on this series' own
 *   resolved forecasts;
 * - shape: the empirical distribution of past standardised residuals (filtered historical
 *   simulation without resampling), centred at its median and blended with the normal while few
 *   exist;
 * - spread: multiplied per volatility regime by an adaptive conformal width so the 80 % interval
 *   covers 80 % in calm and turbulent regimes alike;
 * - confidence: the ±5 % band's probability under that distribution, recalibrated by a rolling
 *   isotonic map of past (probability, hit) outcomes.
 */
export class Forecaster implements DistributionForecaster {
  readonly #horizon: number;
  readonly #volatility: BadTickFilter;
  readonly #longRun: BiasCorrectedAverage;
  readonly #candidates: DriftModel[];
  readonly #selector: DriftSelector;
  readonly #residuals: CenteredResiduals;
  readonly #widths: RegimeWidths;
  readonly #calibrator: IsotonicCalibrator;
  readonly #pending = new Map<number, PendingForecast>();
  readonly #reversion: number;
  #last: DailyClose | undefined;
  #latest: LogForecast | undefined;

  /**
   * @param horizon forecast horizon in whole days (>= 1).
   * @param parameters model constants.
   */
  constructor(horizon: number, parameters: Readonly<ModelParameters>) {
    this.#horizon = horizon;
    this.#volatility = new BadTickFilter(volatilityEngine(parameters), parameters.badTickThreshold);
    this.#longRun = new BiasCorrectedAverage(halfLifeDecay(parameters.longRunHalfLife));
    this.#reversion = halfLifeDecay(parameters.varianceReversionHalfLife);
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
    this.#residuals = new CenteredResiduals(
      parameters.residualWindow,
      parameters.residualPriorWeight * Math.sqrt(horizon),
    );
    this.#widths = new RegimeWidths(
      1 - INTERVAL_COVERAGE,
      Math.min(parameters.coverageStep, parameters.coverageLoopGain / horizon),
      parameters.calmBelow,
      parameters.turbulentAbove,
    );
    this.#calibrator = new IsotonicCalibrator(
      parameters.calibrationWindow,
      parameters.calibrationPriorWeight,
      horizon,
    );
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
    if (last !== undefined) {
      this.#volatility.update(logPrice - Math.log(last.price), gap);
      this.#longRun.update(this.#volatility.engine.nextVariance);
    }
    for (const candidate of this.#candidates) candidate.update(logPrice, gap);
    this.#resolve(close.day, logPrice);
    this.#last = close;
    this.#latest = this.#volatility.engine.ready ? this.#issue(close, logPrice) : undefined;
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
      this.#residuals.record(error / forecast.scale);
      this.#widths.record(forecast.regime, realised >= forecast.lower && realised <= forecast.upper);
      this.#calibrator.record(forecast.rawConfidence, error >= LOG_BAND_LOW && error <= LOG_BAND_HIGH);
    }
  }

  #issue(close: DailyClose, logPrice: number): LogForecast {
    const horizon = this.#horizon;
    const candidates = this.#candidates.map((c) => c.forecast(horizon));
    const choice = this.#selector.choose();
    const change = choice.index < 0 ? 0 : choice.weight * candidates[choice.index]!;
    const engine = this.#volatility.engine;
    const scale = Math.sqrt(
      revertedHorizonVariance(engine.horizonVariance(horizon), this.#longRun.value, horizon, this.#reversion),
    );
    const regime = this.#widths.regimeOf(Math.sqrt(engine.nextVariance / this.#longRun.value));
    const spread = scale * this.#widths.width(regime);
    const quantiles = QUANTILE_LEVELS.map((p) => change + spread * this.#residuals.quantile(p));
    const rawConfidence =
      this.#residuals.cdf(LOG_BAND_HIGH / spread) - this.#residuals.cdf(LOG_BAND_LOW / spread - 1e-12);
    const probabilityUp = 1 - this.#residuals.cdf(-change / spread);
    const lower = quantiles[LOWER_INDEX]!;
    const upper = quantiles[UPPER_INDEX]!;
    this.#pending.set(close.day + horizon, {
      originLogPrice: logPrice,
      candidates,
      change,
      scale,
      lower,
      upper,
      regime,
      rawConfidence,
    });
    return {
      originPrice: close.price,
      change,
      quantiles,
      confidence: this.#calibrator.calibrate(rawConfidence),
      probabilityUp,
    };
  }
}
