import { sigmoid } from "./math.js";
import { minimise } from "./nelder-mead.js";
import { unitStudentLogPdf } from "./student-t.js";

/** GARCH(1,1) with unit-variance Student-t innovations: σ²ₜ₊₁ = ω + α·rₜ² + β·σ²ₜ, rₜ = σₜ·zₜ. */
export interface GarchParameters {
  /** Constant ω of the variance recursion. */
  omega: number;
  /** Weight α of the latest squared return. */
  alpha: number;
  /** Weight β of the previous variance. */
  beta: number;
  /** Degrees of freedom ν (> 2) of the innovations. */
  nu: number;
}

/** The shape of a GARCH-t fit without its scale: persistence α + β, α's share of it, and ν. */
export interface GarchShape {
  alpha: number;
  beta: number;
  nu: number;
}

const MAX_PERSISTENCE = 0.999;
const MIN_NU = 2.5;
const MAX_NU = 60;

/** Unconstrained coordinates of a shape (for the optimiser and for pooling). */
export function shapeToCoordinates(shape: GarchShape): number[] {
  const logit = (p: number) => Math.log(p / (1 - p));
  const persistence = shape.alpha + shape.beta;
  return [
    logit(persistence / MAX_PERSISTENCE),
    logit(shape.alpha / persistence),
    logit((shape.nu - MIN_NU) / (MAX_NU - MIN_NU)),
  ];
}

/** The shape at unconstrained coordinates (inverse of {@link shapeToCoordinates}). */
export function coordinatesToShape(u: readonly number[]): GarchShape {
  const persistence = MAX_PERSISTENCE * sigmoid(u[0]!);
  const alpha = persistence * sigmoid(u[1]!);
  return { alpha, beta: persistence - alpha, nu: MIN_NU + (MAX_NU - MIN_NU) * sigmoid(u[2]!) };
}

/** Mean of squared returns (the unconditional variance used for variance targeting). */
export function meanSquare(returns: readonly number[]): number {
  let sum = 0;
  for (const r of returns) sum += r * r;
  return returns.length > 0 ? sum / returns.length : 0;
}

/**
 * Log-likelihood of zero-mean `returns` under GARCH(1,1)-t with variance targeting (ω = V·(1 − α − β),
 * V the mean square of the returns, the recursion started at V).
 */
export function garchLogLikelihood(returns: readonly number[], shape: GarchShape): number {
  const v = meanSquare(returns);
  const { alpha, beta, nu } = shape;
  const omega = v * (1 - alpha - beta);
  // Unit-variance t: log f(z) = c - (ν+1)/2 · log(1 + z² / (ν - 2)), with c per ν.
  const constant = unitStudentLogPdf(0, nu);
  const half = (nu + 1) / 2;
  const scale = 1 / (nu - 2);
  let variance = v;
  let total = 0;
  for (const r of returns) {
    const square = r * r;
    total += constant - half * Math.log1p((square / variance) * scale) - 0.5 * Math.log(variance);
    variance = omega + alpha * square + beta * variance;
  }
  return total;
}

/**
 * Maximum-likelihood fit of GARCH(1,1)-t to zero-mean daily `returns` (variance targeting; the
 * shape by Nelder-Mead from `start`). Deterministic.
 */
export function fitGarch(
  returns: readonly number[],
  start: GarchShape = DEFAULT_GARCH_SHAPE,
): GarchParameters {
  const { x } = minimise(
    (u) => -garchLogLikelihood(returns, coordinatesToShape(u)),
    shapeToCoordinates(start),
    {
      step: 0.6,
      maxEvaluations: 300,
      tolerance: 1e-6,
    },
  );
  const shape = coordinatesToShape(x);
  return { ...shape, omega: meanSquare(returns) * (1 - shape.alpha - shape.beta) };
}

/**
 * The pooled GARCH-t shape: the mean, in the optimiser's coordinates, of the maximum-likelihood fits
 * of the daily crypto closes in `data/` before 2023-01-01 (BTC α 0.095 β 0.897 ν 3.5, ETH 0.103 /
 * 0.836 / 3.9, SOL 0.151 / 0.769 / 4.9, BNB 0.143 / 0.817 / 3.9). A young series leans on it (see
 * {@link pooledShape}).
 */
export const DEFAULT_GARCH_SHAPE: Readonly<GarchShape> = Object.freeze({
  alpha: 0.123,
  beta: 0.843,
  nu: 3.96,
});

/**
 * A series' own fitted shape shrunk towards the pooled one: in the optimiser's coordinates,
 * own·n / (n + n0) + pooled·n0 / (n + n0), with n its number of returns. Short histories (a young
 * asset) get mostly the pooled shape; long ones mostly their own.
 */
export function pooledShape(
  own: GarchShape,
  returns: number,
  pseudoCount: number,
  pooled: GarchShape,
): GarchShape {
  const w = returns / (returns + pseudoCount);
  const a = shapeToCoordinates(own);
  const b = shapeToCoordinates(pooled);
  return coordinatesToShape(a.map((x, i) => w * x + (1 - w) * b[i]!));
}

/** Variance of the sum of the next `horizon` daily returns given next-day variance `next`. */
export function garchHorizonVariance(next: number, params: GarchParameters, horizon: number): number {
  const persistence = params.alpha + params.beta;
  const longRun = params.omega / (1 - persistence);
  const reverting = (1 - persistence ** horizon) / (1 - persistence);
  return horizon * longRun + (next - longRun) * reverting;
}
