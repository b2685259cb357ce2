import { clamp } from "./math.js";
import { halfLifeDecay } from "./parameters.js";

/** The drift component the selector currently trusts, and how much. */
export interface DriftChoice {
  /** Index of the chosen candidate, or -1 for none (random walk). */
  index: number;
  /** Weight in [0, 1] of the chosen candidate's forecast; the rest stays on "no change". */
  weight: number;
}

/**
 * Chooses between "no change" (the random walk) and drift candidates by a running walk-forward
 * comparison of their resolved forecasts.
 *
 * For every resolved forecast and candidate it records the loss differential
 * d = |realised log change| - |realised - candidate| (positive when the candidate was closer). A
 * candidate earns weight only when the mean of d is significantly positive: its t statistic, with
 * the sample size divided by the horizon because overlapping forecasts share their errors, must
 * exceed `threshold`; the weight then ramps linearly from 0 to 1 over one further unit of t.
 */
export class DriftSelector {
  readonly #horizon: number;
  readonly #decay: number;
  readonly #threshold: number;
  readonly #stats: DifferentialStats[];

  /**
   * @param candidates number of drift candidates.
   * @param horizon forecast horizon in days.
   * @param halfLife half-life, in resolved forecasts, of the evidence (Infinity: never forget).
   * @param threshold t statistic a candidate must exceed before it gets any weight.
   */
  constructor(candidates: number, horizon: number, halfLife: number, threshold: number) {
    this.#horizon = horizon;
    this.#decay = halfLifeDecay(halfLife);
    this.#threshold = threshold;
    this.#stats = Array.from({ length: candidates }, () => ({
      weight: 0,
      squaredWeight: 0,
      sum: 0,
      sumSquares: 0,
    }));
  }

  /** Records one resolved forecast: the realised log change and each candidate's forecast of it. */
  record(realised: number, forecasts: readonly number[]): void {
    const decay = this.#decay;
    this.#stats.forEach((s, i) => {
      const d = Math.abs(realised) - Math.abs(realised - forecasts[i]!);
      s.weight = decay * s.weight + 1;
      s.squaredWeight = decay * decay * s.squaredWeight + 1;
      s.sum = decay * s.sum + d;
      s.sumSquares = decay * s.sumSquares + d * d;
    });
  }

  /**
   * Among the candidates whose t statistic clears the threshold, the one with the largest mean
   * improvement; none (random walk) when no candidate clears it.
   */
  choose(): DriftChoice {
    let best: DriftChoice = { index: -1, weight: 0 };
    let bestMean = 0;
    this.#stats.forEach((s, index) => {
      const t = this.#tStatistic(s);
      const mean = s.sum / s.weight;
      if (t > this.#threshold && mean > bestMean) {
        bestMean = mean;
        best = { index, weight: clamp(t - this.#threshold, 0, 1) };
      }
    });
    return best;
  }

  #tStatistic(s: DifferentialStats): number {
    const effective = (s.weight * s.weight) / s.squaredWeight / this.#horizon;
    if (!(effective >= MIN_EFFECTIVE_SAMPLE)) return 0;
    const mean = s.sum / s.weight;
    const variance = Math.max(s.sumSquares / s.weight - mean * mean, 0);
    if (variance === 0) return mean > 0 ? Number.POSITIVE_INFINITY : 0;
    return mean / Math.sqrt(variance / effective);
  }
}

/** Independent-sample equivalent a candidate needs before its evidence counts. */
const MIN_EFFECTIVE_SAMPLE = 10;

interface DifferentialStats {
  weight: number;
  squaredWeight: number;
  sum: number;
  sumSquares: number;
}
