/** A growing sample of numbers kept in ascending order, for empirical quantiles and CDF values. */
export class SortedSample {
  readonly #values: number[] = [];

  /** Number of values in the sample. */
  get size(): number {
    return this.#values.length;
  }

  /** Adds one value (binary search plus one array insertion). */
  add(value: number): void {
    this.#values.splice(this.#countBelow(value, false), 0, value);
  }

  /** Removes one occurrence of `value` (no-op when absent). */
  delete(value: number): void {
    const at = this.#countBelow(value, false);
    if (this.#values[at] === value) this.#values.splice(at, 1);
  }

  /** Fraction of the sample that is <= `value` (0 for an empty sample). */
  cdf(value: number): number {
    const n = this.#values.length;
    return n === 0 ? 0 : this.#countBelow(value, true) / n;
  }

  /**
   * Empirical quantile at probability `p` in [0, 1], linearly interpolated between order statistics
   * (the "type 7" definition of R and NumPy). Throws on an empty sample.
   */
  quantile(p: number): number {
    const n = this.#values.length;
    if (n === 0) throw new RangeError("quantile of an empty sample");
    const position = Math.min(Math.max(p, 0), 1) * (n - 1);
    const index = Math.floor(position);
    const lower = this.#values[index]!;
    const upper = this.#values[Math.min(index + 1, n - 1)]!;
    return lower + (upper - lower) * (position - index);
  }

  /** Count of values < `value`, or <= `value` when `inclusive`. */
  #countBelow(value: number, inclusive: boolean): number {
    let lo = 0;
    let hi = this.#values.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.#values[mid]!;
      if (v < value || (inclusive && v === value)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
