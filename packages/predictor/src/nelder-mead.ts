/** Options of {@link minimise}. */
export interface MinimiseOptions {
  /** Initial simplex step per coordinate (default 0.5). */
  step?: number;
  /** Most objective evaluations (default 400). */
  maxEvaluations?: number;
  /** Stop when the simplex's objective values span less than this (default 1e-7). */
  tolerance?: number;
}

/**
 * Minimises `f` from `start` with the Nelder-Mead simplex method (reflection 1, expansion 2,
 * contraction 0.5, shrink 0.5). Deterministic; returns the best point and its value. Non-finite
 * objective values count as +Infinity.
 */
export function minimise(
  f: (x: readonly number[]) => number,
  start: readonly number[],
  options: MinimiseOptions = {},
): { x: number[]; value: number } {
  const n = start.length;
  const step = options.step ?? 0.5;
  const maxEvaluations = options.maxEvaluations ?? 400;
  const tolerance = options.tolerance ?? 1e-7;
  let evaluations = 0;
  const value = (x: number[]): number => {
    evaluations += 1;
    const v = f(x);
    return Number.isFinite(v) ? v : Number.POSITIVE_INFINITY;
  };
  const simplex: { x: number[]; v: number }[] = [{ x: [...start], v: value([...start]) }];
  for (let i = 0; i < n; i++) {
    const x = [...start];
    x[i]! += step;
    simplex.push({ x, v: value(x) });
  }
  const along = (from: number[], to: number[], t: number): number[] =>
    from.map((a, i) => a + t * (to[i]! - a));
  while (evaluations < maxEvaluations) {
    simplex.sort((a, b) => a.v - b.v);
    const best = simplex[0]!;
    const worst = simplex[n]!;
    if (Math.abs(worst.v - best.v) < tolerance) break;
    const centroid = new Array<number>(n).fill(0);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) centroid[j]! += simplex[i]!.x[j]! / n;
    const reflected = along(centroid, worst.x, -1);
    const vr = value(reflected);
    if (vr < best.v) {
      const expanded = along(centroid, worst.x, -2);
      const ve = value(expanded);
      simplex[n] = ve < vr ? { x: expanded, v: ve } : { x: reflected, v: vr };
    } else if (vr < simplex[n - 1]!.v) {
      simplex[n] = { x: reflected, v: vr };
    } else {
      const contracted = vr < worst.v ? along(centroid, reflected, 0.5) : along(centroid, worst.x, 0.5);
      const vc = value(contracted);
      if (vc < Math.min(vr, worst.v)) simplex[n] = { x: contracted, v: vc };
      else {
        for (let i = 1; i <= n; i++) {
          const x = along(best.x, simplex[i]!.x, 0.5);
          simplex[i] = { x, v: value(x) };
        }
      }
    }
  }
  simplex.sort((a, b) => a.v - b.v);
  return { x: simplex[0]!.x, value: simplex[0]!.v };
}
