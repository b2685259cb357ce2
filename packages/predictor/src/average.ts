/** Exponentially weighted mean whose weights are normalised by their running total. */
export class BiasCorrectedAverage {
  readonly #decay: number;
  #sum = 0;
  #weight = 0;

  /** @param decay weight multiplier applied to older observations at each update, in [0, 1]. */
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
