/** Seeded synthetic price series with known properties, for tests. */

/** A deterministic uniform generator on [0, 1) (mulberry32), fully determined by `seed`. */
export function seededUniform(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Standard normal draws from a seeded uniform generator (Box-Muller). */
export function seededNormal(seed: number): () => number {
  const uniform = seededUniform(seed);
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

/** Geometric random walk: i.i.d. normal daily log returns with zero mean and `dailyVolatility`. */
export function randomWalk(seed: number, days: number, dailyVolatility: number, start = 100): number[] {
  const normal = seededNormal(seed);
  const prices: number[] = [];
  let logPrice = Math.log(start);
  for (let i = 0; i < days; i++) {
    prices.push(Math.exp(logPrice));
    logPrice += dailyVolatility * normal();
  }
  return prices;
}

/** Deterministic exponential trend (`dailyGrowth` in log terms) times i.i.d. lognormal noise of `noise`. */
export function noisyTrend(
  seed: number,
  days: number,
  dailyGrowth: number,
  noise: number,
  start = 100,
): number[] {
  const normal = seededNormal(seed);
  return Array.from({ length: days }, (_, i) => start * Math.exp(dailyGrowth * i + noise * normal()));
}

/**
 * A synthetic FX-like daily series (labelled synthetic wherever it is used): log returns with a
 * daily volatility of 0.4 % switching to 0.9 % and back in regimes of about a year, Student-t(5)
 * shaped, and `badTicks` erroneous closes (+17 % followed by the true price the next day) at
 * evenly spread days.
 */
export function fxLike(seed: number, days: number, badTicks: number, start = 1.1): number[] {
  const normal = seededNormal(seed);
  const uniform = seededUniform(seed + 1);
  const prices: number[] = [];
  let logPrice = Math.log(start);
  let volatility = 0.004;
  for (let i = 0; i < days; i++) {
    prices.push(Math.exp(logPrice));
    if (uniform() < 1 / 365) volatility = volatility === 0.004 ? 0.009 : 0.004;
    // Student-t(5) draw scaled to unit variance: z / sqrt(chi2_5 / 5) * sqrt(3/5).
    let chi = 0;
    for (let k = 0; k < 5; k++) chi += normal() ** 2;
    logPrice += volatility * (normal() / Math.sqrt(chi / 5)) * Math.sqrt(3 / 5);
  }
  const every = Math.floor(days / (badTicks + 1));
  for (let k = 1; k <= badTicks; k++) prices[k * every] = prices[k * every]! * 1.17;
  return prices;
}
