/** Name and revision of the forecasting model; changes whenever its forecasts would change. */
export const MODEL_VERSION = "strata-garch-ewma-fhs-3";

/** Nominal coverage of the prediction interval. */
export const INTERVAL_COVERAGE = 0.8;

/** Relative band around the median that `confidence` is the probability of. */
export const HIT_TOLERANCE = 0.05;

/** Probabilities of the quantiles every forecast states (`lower`/`upper` are the 10 % and 90 % ones). */
export const QUANTILE_LEVELS = [0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95] as const;

/**
 * Fewest daily closes a forecast needs: a month of daily returns for a first volatility estimate.
 * Forecasts from short histories lean on the pooled GARCH shape, the normal prior and the identity
 * confidence map until enough of their own forecasts have resolved.
 */
export const MIN_HISTORY_DAYS = 30;

/** The conditional-variance models the forecaster can run. */
export type VolatilityModelName =
  | "garch-t"
  | "ewma"
  | "garch-t+ewma"
  | "har"
  | "garch-t+har"
  | "garch-t+ewma+har";

/** Tunable constants of the model. */
export interface ModelParameters {
  /** Conditional-variance model: GARCH(1,1)-t by maximum likelihood, RiskMetrics EWMA, or their equal-weight mean. */
  volatilityModel: VolatilityModelName;
  /** λ of the EWMA variance (when `volatilityModel` is "ewma"). */
  ewmaDecay: number;
  /** GARCH: refit by maximum likelihood after every this many returns. */
  garchRefitEvery: number;
  /** GARCH: pseudo-count (returns) of the pooled shape in the fit of a short history. */
  garchPoolingCount: number;
  /** A daily return beyond this many forecast standard deviations is clipped (and a reversed one undone). */
  badTickThreshold: number;
  /** Half-life (days) of the long-run variance level the volatility regimes are measured against. */
  longRunHalfLife: number;
  /**
   * Half-life (days) of the reversion of the h-day variance towards the long-run level, on top of
   * the volatility model's own term structure (Infinity: none).
   */
  varianceReversionHalfLife: number;
  /** Volatility ratio (current / long-run standard deviation) below which the regime is calm. */
  calmBelow: number;
  /** Volatility ratio above which the regime is turbulent. */
  turbulentAbove: number;
  /** Step of a regime's log spread multiplier per resolved forecast (adaptive conformal inference). */
  coverageStep: number;
  /** Cap on step × horizon: the coverage feedback arrives `horizon` days late. */
  coverageLoopGain: number;
  /** Resolved standardised residuals kept for the predictive distribution's shape (Infinity: all). */
  residualWindow: number;
  /** Pseudo-count (per √horizon) of the normal prior blended into the residual distribution. */
  residualPriorWeight: number;
  /** Resolved (probability, hit) pairs kept for the isotonic confidence map. */
  calibrationWindow: number;
  /** Pseudo-count of the identity map blended into the isotonic confidence map. */
  calibrationPriorWeight: number;
  /** Half-life (days) of the exponentially weighted drift candidate. */
  driftHalfLife: number;
  /** Level smoothing of the damped-trend candidate. */
  trendAlpha: number;
  /** Trend smoothing of the damped-trend candidate. */
  trendBeta: number;
  /** Per-day damping of the damped-trend candidate. */
  trendDamping: number;
  /** Half-life (resolved forecasts) of the evidence for drift candidates; Infinity never forgets. */
  selectionHalfLife: number;
  /** t statistic a drift candidate must exceed against the random walk before it is used. */
  selectionThreshold: number;
}

/**
 * The constants of {@link MODEL_VERSION}. None of them is fitted to a price level or a date: the
 * GARCH parameters, residual quantiles, regime widths and confidence map are learned online from
 * the history being forecast. The structural constants were chosen by walk-forward proper scores
 * (Winkler score of the 80 % interval, pinball loss, Brier score) at horizons 1, 7 and 30 days on
 * origins before 2023-01-01 of the crypto series in `data/` (see docs/oracle.md for the hold-out
 * after it). Geometric-mean Winkler ratio to EWMA-FHS over BTC, ETH, SOL, BNB at h = 1 / 7 / 30:
 * GARCH-t alone 0.993 / 0.984 / 0.982, EWMA alone 1.001 / 0.981 / 0.964, their mean 0.993 / 0.977 /
 * 0.962 (kept); keeping all residuals scored slightly better than the last 1,000; one volatility
 * regime instead of three widened the turbulent tercile's coverage at 7 days (0.89 against 0.85).
 * (Compared with a rounded pooled GARCH shape, later replaced by the fitted one.) Then, on the
 * same origins: reverting the h-day variance towards a 180-day long-run level with a 30-day
 * half-life moved the ratios from 0.992 / 0.979 / 0.961 to 0.992 / 0.977 / 0.954 (kept); adding
 * HAR on daily squared returns with equal weight gave 0.990 / 0.979 / 0.955 (no net gain), and
 * weighting the members by past log scores was worse than equal weights (docs/oracle.md lists
 * every candidate).
 */
export const DEFAULT_MODEL_PARAMETERS: Readonly<ModelParameters> = Object.freeze({
  volatilityModel: "garch-t+ewma",
  ewmaDecay: 0.94,
  garchRefitEvery: 91,
  garchPoolingCount: 730,
  badTickThreshold: 6,
  longRunHalfLife: 180,
  varianceReversionHalfLife: 30,
  calmBelow: 0.8,
  turbulentAbove: 1.25,
  coverageStep: 0.02,
  coverageLoopGain: 0.3,
  residualWindow: Number.POSITIVE_INFINITY,
  residualPriorWeight: 20,
  calibrationWindow: 2000,
  calibrationPriorWeight: 200,
  driftHalfLife: 30,
  trendAlpha: 0.5,
  trendBeta: 0.1,
  trendDamping: 0.98,
  selectionHalfLife: Number.POSITIVE_INFINITY,
  selectionThreshold: 2.5,
} satisfies ModelParameters);

/** Per-step decay factor of an exponential weight with the given half-life (1 for Infinity). */
export function halfLifeDecay(halfLife: number): number {
  return halfLife === Number.POSITIVE_INFINITY ? 1 : 0.5 ** (1 / halfLife);
}
