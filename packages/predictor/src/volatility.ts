import { halfLifeDecay } from "./parameters.js";

/**
 * Variance of daily log returns with a GARCH-like term structure: a fast EWMA (current regime) that
 * is forecast to revert geometrically towards a slow EWMA (long-run level).
 *
 * Both averages are bias-corrected (divided by the total weight seen so far), so the first
 * observations are not pulled towards an arbitrary start value.
 */
export class VolatilityTracker {
  readonly #fast: BiasCorrectedAverage;
  readonly #slow: BiasCorrectedAverage;
  readonly #persistence: number;

  /**
   * @param fastHalfLife half-life in days of the current-regime variance.
   * @param slowHalfLife half-life in days of the long-run variance.
   * @param persistence per-day factor by which the gap between the two decays in the forecast.
   */
  constructor(fastHalfLife: number, slowHalfLife: number, persistence: number) {
    this.#fast = new BiasCorrectedAverage(halfLifeDecay(fastHalfLife));
    this.#slow = new BiasCorrectedAverage(halfLifeDecay(slowHalfLife));
    this.#persistence = persistence;
  }

  /** Whether at least one return has been seen. */
  get ready(): boolean {
    return this.#fast.ready;
  }

  /** Adds the log return between two closes `gapDays` apart (counted as `gapDays` daily returns' worth). */
  update(logReturn: number, gapDays: number): void {
    const dailyVariance = (logReturn * logReturn) / gapDays;
    this.#fast.update(dailyVariance);
    this.#slow.update(dailyVariance);
  }

  /** Variance of the log return over the next `horizon` days (sum of the daily variance forecasts). */
  horizonVariance(horizon: number): number {
    const current = this.#fast.value;
    const longRun = this.#slow.value;
    const phi = this.#persistence;
    const reverting = phi >= 1 ? horizon : (1 - phi ** horizon) / (1 - phi);
    return Math.max(horizon * longRun + (current - longRun) * reverting, horizon * MIN_DAILY_VARIANCE);
  }
}

/** Floor of the daily variance (a 0.01 % daily move), so a flat series still has a finite scale. */
const MIN_DAILY_VARIANCE = 1e-8;

/** Exponentially weighted mean whose weights are normalised by their running total. */
export class BiasCorrectedAverage {
  readonly #decay: number;
  #sum = 0;
  #weight = 0;

  /** @param decay weight multiplier applied to older observations at each update, in [0, 1). */
  constructor(decay: number) {
    this.#decay = decay;
  }

  /** Whether at least one observation has been seen. */
  get ready(): boolean {
    return this.#weight > 0;
  }

  /** The weighted mean so far (0 before any observation). */
  get value(): number {
    return this.#weight > 0 ? this.#sum / this.#weight : 0;
  }

  /** Adds one observation with unit weight. */
  update(x: number): void {
    this.#sum = this.#decay * this.#sum + x;
    this.#weight = this.#decay * this.#weight + 1;
  }
}
