import { clamp, normalCdf, normalQuantile } from "./math.js";
import { SortedSample } from "./sorted-sample.js";

/**
 * The distribution of standardised forecast residuals z = (realised − forecast) / scale over a
 * rolling window of resolved forecasts, blended with the standard normal while few exist (the
 * normal counts as `priorWeight` pseudo-observations), and (when `centred`) shifted to median 0
 * so that the median of the predictive distribution is the point forecast.
 */
export class CenteredResiduals {
  readonly #sample = new SortedSample();
  readonly #order: number[] = [];

  /**
   * @param window residuals kept (the oldest is dropped beyond it).
   * @param priorWeight pseudo-count of the standard normal prior.
   * @param centred shift the distribution to median 0 (default true).
   */
  constructor(
    private readonly window: number,
    private readonly priorWeight: number,
    private readonly centred = true,
  ) {}

  /** Adds a resolved standardised residual. */
  record(residual: number): void {
    this.#sample.add(residual);
    this.#order.push(residual);
    if (this.#order.length > this.window) this.#sample.delete(this.#order.shift()!);
  }

  /** Quantile at `p` (0 at p = 0.5 when centred). */
  quantile(p: number): number {
    return this.#blendedQuantile(p) - this.#shift();
  }

  /** CDF at `x`. */
  cdf(x: number): number {
    const shifted = x + this.#shift();
    const n = this.#sample.size;
    return (n * this.#sample.cdf(shifted) + this.priorWeight * normalCdf(shifted)) / (n + this.priorWeight);
  }

  #shift(): number {
    return this.centred ? this.#blendedQuantile(0.5) : 0;
  }

  #blendedQuantile(p: number): number {
    const prior = normalQuantile(clamp(p, 1e-9, 1 - 1e-9));
    const n = this.#sample.size;
    if (n === 0) return prior;
    return (n * this.#sample.quantile(p) + this.priorWeight * prior) / (n + this.priorWeight);
  }
}

/**
 * Regime-adaptive conformal widths: one multiplier of the predictive spread per volatility regime
 * (calm, normal, turbulent: the ratio of the current volatility forecast to its long-run level
 * below `calmBelow`, between, or above `turbulentAbove`). After each resolved forecast the
 * multiplier of the regime it was issued in moves in log space by `step` × (missed − target miss
 * rate), so the 80 % interval covers 80 % within each regime (adaptive conformal inference).
 */
export class RegimeWidths {
  readonly #logWidths = [0, 0, 0];

  constructor(
    private readonly targetMiss: number,
    private readonly step: number,
    private readonly calmBelow: number,
    private readonly turbulentAbove: number,
  ) {}

  /** Regime index (0 calm, 1 normal, 2 turbulent) of a volatility ratio. */
  regimeOf(volatilityRatio: number): number {
    if (volatilityRatio < this.calmBelow) return 0;
    return volatilityRatio > this.turbulentAbove ? 2 : 1;
  }

  /** The spread multiplier of a regime. */
  width(regime: number): number {
    return Math.exp(this.#logWidths[regime]!);
  }

  /** Records whether the interval issued in `regime` covered the outcome. */
  record(regime: number, covered: boolean): void {
    const next = this.#logWidths[regime]! + this.step * ((covered ? 0 : 1) - this.targetMiss);
    this.#logWidths[regime] = clamp(next, MIN_LOG_WIDTH, MAX_LOG_WIDTH);
  }
}

/** The multipliers stay within a factor 3 of the model's own spread, so they cannot wind up. */
const MIN_LOG_WIDTH = -Math.log(3);
const MAX_LOG_WIDTH = Math.log(3);
