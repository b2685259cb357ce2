import { meanSquare } from "./garch.js";
import { sigmoid } from "./math.js";
import { minimise } from "./nelder-mead.js";

/**
 * Weights of a HAR variance model on daily squared returns: the next day's variance is
 * ω + daily·r²ₜ + weekly·(mean of the last 5 r²) + monthly·(mean of the last 22 r²).
 */
export interface HarShape {
  daily: number;
  weekly: number;
  monthly: number;
}

/** Window lengths (days) of the three HAR components. */
export const HAR_WINDOWS = [1, 5, 22] as const;

const MAX_PERSISTENCE = 0.999;

/** Unconstrained coordinates of a shape: logit of its persistence and the log shares of weekly and monthly against daily. */
export function harShapeToCoordinates(shape: HarShape): number[] {
  const persistence = shape.daily + shape.weekly + shape.monthly;
  const p = persistence / MAX_PERSISTENCE;
  return [Math.log(p / (1 - p)), Math.log(shape.weekly / shape.daily), Math.log(shape.monthly / shape.daily)];
}

/** The shape at unconstrained coordinates (inverse of {@link harShapeToCoordinates}); every weight is positive. */
export function coordinatesToHarShape(u: readonly number[]): HarShape {
  const persistence = MAX_PERSISTENCE * sigmoid(u[0]!);
  const weekly = Math.exp(u[1]!);
  const monthly = Math.exp(u[2]!);
  const total = 1 + weekly + monthly;
  return {
    daily: persistence / total,
    weekly: (persistence * weekly) / total,
    monthly: (persistence * monthly) / total,
  };
}

/**
 * Pooled HAR shape a short history leans on (persistence 0.95; the weekly and monthly components
 * carry most of it, as in HAR fits of daily realised variance).
 */
export const DEFAULT_HAR_SHAPE: Readonly<HarShape> = Object.freeze({
  daily: 0.15,
  weekly: 0.35,
  monthly: 0.45,
});

/**
 * Rolling sums of the last 1, 5 and 22 squared returns, fed one square at a time. Fewer squares
 * than a window are averaged over those seen (and `fill` stands in before the first).
 */
export class HarComponents {
  readonly #squares: number[] = [];

  /** @param fill the value of every mean before the first square (the long-run variance). */
  constructor(private readonly fill: number) {}

  /** Adds the next squared return. */
  add(square: number): void {
    this.#squares.push(square);
    if (this.#squares.length > HAR_WINDOWS[2]) this.#squares.shift();
  }

  /** Mean of the last `window` squares. */
  mean(window: number): number {
    const n = Math.min(window, this.#squares.length);
    if (n === 0) return this.fill;
    let sum = 0;
    for (let i = this.#squares.length - n; i < this.#squares.length; i += 1) sum += this.#squares[i]!;
    return sum / n;
  }

  /** HAR forecast of the next square with the given weights and intercept. */
  next(shape: HarShape, omega: number): number {
    return omega + shape.daily * this.mean(1) + shape.weekly * this.mean(5) + shape.monthly * this.mean(22);
  }

  /** An independent copy. */
  copy(): HarComponents {
    const c = new HarComponents(this.fill);
    c.#squares.push(...this.#squares);
    return c;
  }
}

/** Intercept of a HAR shape under variance targeting (long-run variance `v`). */
export function harOmega(shape: HarShape, v: number): number {
  return v * (1 - shape.daily - shape.weekly - shape.monthly);
}

/**
 * Gaussian quasi-log-likelihood of zero-mean `returns` under a HAR shape with variance targeting
 * (ω = V·(1 − persistence), V the mean square; components started at V). Maximising it minimises
 * the QLIKE loss of the one-day variance forecasts, which, unlike least squares on r², is not
 * dominated by a few extreme days.
 */
export function harLogLikelihood(returns: readonly number[], shape: HarShape): number {
  const v = Math.max(meanSquare(returns), Number.MIN_VALUE);
  const omega = harOmega(shape, v);
  const components = new HarComponents(v);
  let total = 0;
  for (const r of returns) {
    const variance = Math.max(components.next(shape, omega), v * 1e-6);
    total -= 0.5 * (Math.log(variance) + (r * r) / variance);
    components.add(r * r);
  }
  return total;
}

/** Quasi-maximum-likelihood HAR shape of zero-mean daily `returns` (Nelder-Mead from `start`). Deterministic. */
export function fitHar(returns: readonly number[], start: HarShape = DEFAULT_HAR_SHAPE): HarShape {
  const { x } = minimise(
    (u) => -harLogLikelihood(returns, coordinatesToHarShape(u)),
    harShapeToCoordinates(start),
    {
      step: 0.6,
      maxEvaluations: 300,
      tolerance: 1e-6,
    },
  );
  return coordinatesToHarShape(x);
}

/**
 * Variance of the sum of the next `horizon` daily returns: the HAR recursion iterated forward from
 * `components`, each future squared return replaced by its forecast (so the term structure reverts
 * to the long-run level at the speed the weights imply).
 */
export function harHorizonVariance(
  components: HarComponents,
  shape: HarShape,
  omega: number,
  horizon: number,
): number {
  const future = components.copy();
  let total = 0;
  for (let k = 0; k < horizon; k += 1) {
    const v = future.next(shape, omega);
    total += v;
    future.add(v);
  }
  return total;
}
