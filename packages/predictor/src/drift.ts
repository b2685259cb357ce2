import { BiasCorrectedAverage } from "./average.js";
import { halfLifeDecay } from "./parameters.js";

/**
 * A point-forecast component: it follows the log price and forecasts the log change from the latest
 * close to the close `horizon` days later.
 */
export interface DriftModel {
  /** Adds a close, `gapDays` after the previous one (ignored for the first close). */
  update(logPrice: number, gapDays: number): void;
  /** Forecast log change over the next `horizon` days. */
  forecast(horizon: number): number;
}

/** Mean daily log return, exponentially weighted: a constant-drift extrapolation. */
export class EwmaDrift implements DriftModel {
  readonly #mean: BiasCorrectedAverage;
  #last: number | undefined;

  /** @param halfLife half-life in days of the weights of past returns. */
  constructor(halfLife: number) {
    this.#mean = new BiasCorrectedAverage(halfLifeDecay(halfLife));
  }

  update(logPrice: number, gapDays: number): void {
    if (this.#last !== undefined) this.#mean.update((logPrice - this.#last) / gapDays);
    this.#last = logPrice;
  }

  forecast(horizon: number): number {
    return this.#mean.value * horizon;
  }
}

/**
 * Holt's exponential smoothing with an additive damped trend (ETS(A,Ad,N)) on the log price.
 * The forecast is taken relative to the latest close, so it combines the damped trend with the pull
 * of the smoothed level.
 */
export class DampedTrend implements DriftModel {
  readonly #alpha: number;
  readonly #beta: number;
  readonly #phi: number;
  #level = 0;
  #trend = 0;
  #last: number | undefined;

  /**
   * @param alpha level smoothing in (0, 1].
   * @param beta trend smoothing in [0, 1].
   * @param phi per-day damping of the trend in (0, 1].
   */
  constructor(alpha: number, beta: number, phi: number) {
    this.#alpha = alpha;
    this.#beta = beta;
    this.#phi = phi;
  }

  update(logPrice: number, gapDays: number): void {
    if (this.#last === undefined) {
      this.#level = logPrice;
    } else {
      const expected = this.#level + this.#trend * this.#dampedSum(gapDays);
      const level = this.#alpha * logPrice + (1 - this.#alpha) * expected;
      const slope = (level - this.#level) / gapDays;
      this.#trend = this.#beta * slope + (1 - this.#beta) * this.#phi ** gapDays * this.#trend;
      this.#level = level;
    }
    this.#last = logPrice;
  }

  forecast(horizon: number): number {
    if (this.#last === undefined) return 0;
    return this.#level + this.#trend * this.#dampedSum(horizon) - this.#last;
  }

  /** φ + φ² + … + φ^steps. */
  #dampedSum(steps: number): number {
    const phi = this.#phi;
    return phi >= 1 ? steps : (phi * (1 - phi ** steps)) / (1 - phi);
  }
}
