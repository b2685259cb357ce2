import { clamp, normalCdf, normalQuantile } from "./math.js";
import { SortedSample } from "./sorted-sample.js";

/** Bounds of a central prediction interval in units of the forecast scale. */
export interface StandardBounds {
  lower: number;
  upper: number;
}

/**
 * Distribution of standardised forecast residuals z = (realised - forecast) / scale, learned from
 * resolved forecasts only.
 *
 * - Interval bounds are empirical quantiles of z (a conformal interval), blended with the standard
 *   normal while few residuals exist (the normal counts as `priorWeight` pseudo-observations).
 * - The miscoverage level follows adaptive conformal inference: after each resolved forecast it
 *   moves by `adaptationRate` × (target miss rate - missed), so the long-run coverage is pulled to
 *   the target even when the residual distribution drifts.
 */
export class ResidualDistribution {
  readonly #sample = new SortedSample();
  readonly #targetMiss: number;
  readonly #adaptationRate: number;
  readonly #priorWeight: number;
  #miss: number;

  /**
   * @param coverage target coverage of the interval, in (0, 1).
   * @param adaptationRate step of the adaptive miscoverage level.
   * @param priorWeight pseudo-count of the standard normal prior.
   */
  constructor(coverage: number, adaptationRate: number, priorWeight: number) {
    this.#targetMiss = 1 - coverage;
    this.#miss = this.#targetMiss;
    this.#adaptationRate = adaptationRate;
    this.#priorWeight = priorWeight;
  }

  /** Adds a resolved residual and whether the interval stated for it covered the outcome. */
  record(residual: number, covered: boolean): void {
    this.#sample.add(residual);
    const step = this.#adaptationRate * (this.#targetMiss - (covered ? 0 : 1));
    this.#miss = clamp(this.#miss + step, MIN_MISS, MAX_MISS);
  }

  /** Current interval bounds in units of the forecast scale. */
  bounds(): StandardBounds {
    const tail = this.#miss / 2;
    return { lower: this.#blendedQuantile(tail), upper: this.#blendedQuantile(1 - tail) };
  }

  /** Probability that a residual falls in [`from`, `to`]. */
  probabilityBetween(from: number, to: number): number {
    const n = this.#sample.size;
    const empirical = this.#sample.cdf(to) - this.#sample.cdf(from);
    const prior = normalCdf(to) - normalCdf(from);
    return (n * empirical + this.#priorWeight * prior) / (n + this.#priorWeight);
  }

  #blendedQuantile(p: number): number {
    const prior = normalQuantile(p);
    const n = this.#sample.size;
    if (n === 0) return prior;
    return (n * this.#sample.quantile(p) + this.#priorWeight * prior) / (n + this.#priorWeight);
  }
}

/** The adaptive miscoverage level stays within these bounds (a 50 % to 98 % interval), so it cannot wind up. */
const MIN_MISS = 0.02;
const MAX_MISS = 0.5;
