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
 * Merges adjacent blocks, left to right, until each holds at least `minWeight` outcomes (a light
 * remainder at the top joins the block below it). A merged mean lies between the means merged, so
 * the blocks stay non-decreasing: a block of a few outcomes is noise, not evidence.
 */
export function mergeLightBlocks(blocks: readonly Block[], minWeight: number): Block[] {
  const join = (a: Block, b: Block): Block => {
    const weight = a.weight + b.weight;
    return {
      x: (a.x * a.weight + b.x * b.weight) / weight,
      y: (a.y * a.weight + b.y * b.weight) / weight,
      weight,
    };
  };
  const merged: Block[] = [];
  let pending: Block | undefined;
  for (const block of blocks) {
    pending = pending === undefined ? block : join(pending, block);
    if (pending.weight >= minWeight) {
      merged.push(pending);
      pending = undefined;
    }
  }
  if (pending !== undefined) {
    const last = merged.pop();
    merged.push(last === undefined ? pending : join(last, pending));
  }
  return merged;
}

/**
 * Monotone recalibration of probabilities on a rolling window of resolved (raw probability, hit)
 * pairs, refitted after every 10 new pairs: the isotonic fit with blocks lighter than
 * 30 × `overlap` outcomes merged into a neighbour, interpolated linearly between the blocks' mean
 * probabilities and parallel to the identity beyond them (clamped to [0, 1]), blended with the
 * identity map as `priorWeight` pseudo-observations:
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
  #sinceFit = 0;

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
    this.#sinceFit += 1;
    if (this.#sinceFit >= REFIT_EVERY) this.#blocks = undefined;
  }

  /** Maps a raw probability to a calibrated one. */
  calibrate(rawProbability: number): number {
    const n = this.#sorted.length;
    if (n === 0) return rawProbability;
    if (this.#blocks === undefined) this.#sinceFit = 0;
    this.#blocks ??= mergeLightBlocks(poolAdjacentViolators(this.#sorted), MIN_BLOCK_OUTCOMES * this.overlap);
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

/** The map is refitted after this many new outcomes (a refit is a pass over the window). */
const REFIT_EVERY = 10;

/** Independent outcomes a block of the isotonic map needs at least. */
const MIN_BLOCK_OUTCOMES = 30;

function interpolate(blocks: readonly Block[], x: number): number {
  const first = blocks[0]!;
  const last = blocks.at(-1)!;
  // Beyond the evidence: shift the identity through the end block (monotone, continuous).
  if (x <= first.x) return Math.max(0, first.y + (x - first.x));
  if (x >= last.x) return Math.min(1, last.y + (x - last.x));
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
