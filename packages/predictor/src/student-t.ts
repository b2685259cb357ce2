/** The Student-t distribution scaled to unit variance (degrees of freedom ν > 2), for GARCH-t models. */

const LANCZOS = [
  676.5203681218851, -1259.1392167224028, 771.3234287776531, -176.6150291621406, 12.507343278686905,
  -0.13857109526572012, 9.984369578019572e-6, 1.5056327351493116e-7,
];

/** Natural log of the gamma function for x > 0 (Lanczos approximation, g = 7). */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const z = x - 1;
  let sum = 0.9999999999998099;
  LANCZOS.forEach((c, i) => {
    sum += c / (z + i + 1);
  });
  const t = z + LANCZOS.length - 0.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** Log density at `z` of the unit-variance Student-t with `nu` (> 2) degrees of freedom. */
export function unitStudentLogPdf(z: number, nu: number): number {
  const s2 = (nu - 2) / nu;
  const x = z / Math.sqrt(s2);
  return (
    logGamma((nu + 1) / 2) -
    logGamma(nu / 2) -
    0.5 * Math.log(nu * Math.PI) -
    ((nu + 1) / 2) * Math.log1p((x * x) / nu) -
    0.5 * Math.log(s2)
  );
}

/** Continued fraction of the regularised incomplete beta function (Numerical Recipes `betacf`). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 200; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-12) break;
  }
  return h;
}

/** Regularised incomplete beta function I_x(a, b) for 0 <= x <= 1. */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x));
  return x < (a + 1) / (a + b + 2)
    ? (front * betaContinuedFraction(a, b, x)) / a
    : 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

/** CDF at `z` of the unit-variance Student-t with `nu` (> 2) degrees of freedom. */
export function unitStudentCdf(z: number, nu: number): number {
  const x = z / Math.sqrt((nu - 2) / nu);
  const tail = 0.5 * incompleteBeta(nu / (nu + x * x), nu / 2, 0.5);
  return x >= 0 ? 1 - tail : tail;
}

/** Quantile at probability `p` (0 < p < 1) of the unit-variance Student-t (bisection, 1e-10). */
export function unitStudentQuantile(p: number, nu: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`unitStudentQuantile needs 0 < p < 1, got ${p}`);
  let lo = -50;
  let hi = 50;
  for (let i = 0; i < 100 && hi - lo > 1e-10; i++) {
    const mid = (lo + hi) / 2;
    if (unitStudentCdf(mid, nu) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}
