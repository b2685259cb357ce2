import { logit, sigmoid } from "./math.js";

/**
 * Platt-style recalibration of probabilities: calibrated = σ(a · logit(raw) + b), with (a, b)
 * fitted by ridge-penalised logistic regression on resolved (raw probability, hit) pairs.
 *
 * The ridge term pulls (a, b) towards the identity map (1, 0) with strength `ridge`, which keeps the
 * map sensible while few outcomes are known. After each new pair one Newton step is taken from the
 * previous solution over all pairs, so the fit tracks the exact optimum as evidence accumulates.
 */
export class ConfidenceCalibrator {
  readonly #ridge: number;
  readonly #features: number[] = [];
  readonly #hits: number[] = [];
  #slope = 1;
  #intercept = 0;

  /** @param ridge strength of the pull towards the identity map. */
  constructor(ridge: number) {
    this.#ridge = ridge;
  }

  /** Adds a resolved forecast: the raw probability stated for it and whether the event happened. */
  record(rawProbability: number, hit: boolean): void {
    this.#features.push(logit(rawProbability));
    this.#hits.push(hit ? 1 : 0);
    this.#newtonStep();
  }

  /** Maps a raw probability to a calibrated one. */
  calibrate(rawProbability: number): number {
    return sigmoid(this.#slope * logit(rawProbability) + this.#intercept);
  }

  #newtonStep(): void {
    const ridge = this.#ridge;
    let gradSlope = -ridge * (this.#slope - 1);
    let gradIntercept = -ridge * this.#intercept;
    let hSlope = ridge;
    let hCross = 0;
    let hIntercept = ridge;
    for (let i = 0; i < this.#features.length; i++) {
      const x = this.#features[i]!;
      const p = sigmoid(this.#slope * x + this.#intercept);
      const residual = this.#hits[i]! - p;
      const w = p * (1 - p);
      gradSlope += residual * x;
      gradIntercept += residual;
      hSlope += w * x * x;
      hCross += w * x;
      hIntercept += w;
    }
    const det = hSlope * hIntercept - hCross * hCross;
    this.#slope += (hIntercept * gradSlope - hCross * gradIntercept) / det;
    this.#intercept += (hSlope * gradIntercept - hCross * gradSlope) / det;
  }
}
