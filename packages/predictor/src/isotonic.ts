/** One block of a pool-adjacent-violators fit: mean input, mean outcome and weight. */
interface Block {
  x: number;
  y: number;
  weight: number;
}

/**
 * Isotonic (pool-adjacent-violators) regression of 0/1 outcomes on probabilities: the
 * non-decreasing step function closest in squared error. `points` must be sorted by `x`.
 */
export function poolAdjacentViolators(points: readonly { x: number; y: number }[]): Block[] {
  const blocks: Block[] = [];
  for (const p of points) {
    blocks.push({ x: p.x, y: p.y, weight: 1 });
    while (blocks.length > 1 && blocks.at(-2)!.y >= blocks.at(-1)!.y) {
      const b = blocks.pop()!;
      const a = blocks.at(-1)!;
      const weight = a.weight + b.weight;
      a.x = (a.x * a.weight + b.x * b.weight) / weight;
      a.y = (a.y * a.weight + b.y * b.weight) / weight;
      a.weight = weight;
    }
  }
  return blocks;
}

/**
 * Monotone recalibration of probabilities on a rolling window of resolved (raw probability, hit)
 * pairs: the isotonic fit, interpolated linearly between its blocks' mean probabilities (flat
 * beyond the ends), blended with the identity map as `priorWeight` pseudo-observations:
 * calibrated = (n' · isotonic(p) + m · p) / (n' + m), where n' = n / `overlap` is the effective
 * number of independent outcomes (h-day outcomes issued on consecutive days share h − 1 days, so
 * `overlap` is the horizon). Both parts are non-decreasing in p, so the map is monotone; one
 * outlying outcome moves a block's mean by at most 1 / its weight and the blend by at most
 * 1 / (n' + m).
 */
export class IsotonicCalibrator {
  readonly #sorted: { x: number; y: number }[] = [];
  readonly #order: { x: number; y: number }[] = [];
  #blocks: Block[] | undefined;

  constructor(
    private readonly window: number,
    private readonly priorWeight: number,
    private readonly overlap = 1,
  ) {}

  /** Adds a resolved forecast: its raw probability and whether the event happened. */
  record(rawProbability: number, hit: boolean): void {
    const point = { x: rawProbability, y: hit ? 1 : 0 };
    this.#sorted.splice(this.#insertionIndex(point.x), 0, point);
    this.#order.push(point);
    if (this.#order.length > this.window) {
      const old = this.#order.shift()!;
      this.#sorted.splice(this.#sorted.indexOf(old, this.#insertionIndex(old.x)), 1);
    }
    this.#blocks = undefined;
  }

  /** Maps a raw probability to a calibrated one. */
  calibrate(rawProbability: number): number {
    const n = this.#sorted.length;
    if (n === 0) return rawProbability;
    this.#blocks ??= poolAdjacentViolators(this.#sorted);
    const fitted = interpolate(this.#blocks, rawProbability);
    const effective = n / this.overlap;
    return (effective * fitted + this.priorWeight * rawProbability) / (effective + this.priorWeight);
  }

  /** First index whose x is >= `x` (before equal ones). */
  #insertionIndex(x: number): number {
    let lo = 0;
    let hi = this.#sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#sorted[mid]!.x < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function interpolate(blocks: readonly Block[], x: number): number {
  const first = blocks[0]!;
  const last = blocks.at(-1)!;
  if (x <= first.x) return first.y;
  if (x >= last.x) return last.y;
  let lo = 0;
  let hi = blocks.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (blocks[mid]!.x <= x) lo = mid;
    else hi = mid;
  }
  const a = blocks[lo]!;
  const b = blocks[hi]!;
  return b.x === a.x ? b.y : a.y + ((b.y - a.y) * (x - a.x)) / (b.x - a.x);
}
