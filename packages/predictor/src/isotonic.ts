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
 * Merges blocks lighter than `minWeight` into their neighbour with the closer mean outcome (the
 * merged mean lies between the two, so the blocks stay non-decreasing), until every block is at
 * least that heavy or one block is left: a block of a few outcomes is noise, not evidence.
 */
export function mergeLightBlocks(blocks: Block[], minWeight: number): Block[] {
  for (;;) {
    const i = blocks.findIndex((b) => b.weight < minWeight);
    if (i < 0 || blocks.length < 2) return blocks;
    const left = blocks[i - 1];
    const right = blocks[i + 1];
    const j =
      left === undefined
        ? i + 1
        : right === undefined || Math.abs(left.y - blocks[i]!.y) <= Math.abs(right.y - blocks[i]!.y)
          ? i - 1
          : i + 1;
    const [a, b] = [blocks[Math.min(i, j)]!, blocks[Math.max(i, j)]!];
    const weight = a.weight + b.weight;
    blocks.splice(Math.min(i, j), 2, {
      x: (a.x * a.weight + b.x * b.weight) / weight,
      y: (a.y * a.weight + b.y * b.weight) / weight,
      weight,
    });
  }
}

/**
 * Monotone recalibration of probabilities on a rolling window of resolved (raw probability, hit)
 * pairs: the isotonic fit, interpolated linearly between its blocks' mean probabilities (flat
 * beyond the ends: parallel to the identity, clamped to [0, 1]; blocks lighter than 30 × `overlap`
 * outcomes merged into a neighbour), blended with the identity map as `priorWeight` pseudo-observations:
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
