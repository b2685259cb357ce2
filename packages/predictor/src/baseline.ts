import type { DistributionForecaster, LogForecast } from "./forecaster.js";
import { normalCdf, normalQuantile } from "./math.js";
import { HIT_TOLERANCE, QUANTILE_LEVELS } from "./parameters.js";
import { CenteredResiduals } from "./residuals.js";
import { unitStudentCdf, unitStudentQuantile } from "./student-t.js";
import type { DailyClose } from "./types.js";
import { EwmaVolatility, GarchVolatility, MIN_DAILY_VARIANCE, type VolatilityEngine } from "./volatility.js";

const LOG_BAND_LOW = Math.log(1 - HIT_TOLERANCE);
const LOG_BAND_HIGH = Math.log(1 + HIT_TOLERANCE);

/** Names of the baselines every backtest scores beside the model. */
export const BASELINE_NAMES = ["rw-vol90", "ewma-normal", "ewma-fhs", "garch"] as const;

/** One of {@link BASELINE_NAMES}. */
export type BaselineName = (typeof BASELINE_NAMES)[number];

/** A zero-median forecast from a distribution of the standardised log change (CDF and quantile). */
function forecastFrom(
  originPrice: number,
  scale: number,
  cdf: (z: number) => number,
  quantile: (p: number) => number,
): LogForecast {
  const quantiles = QUANTILE_LEVELS.map((p) => scale * quantile(p));
  const change = scale * quantile(0.5);
  return {
    originPrice,
    change,
    quantiles,
    confidence: cdf((change + LOG_BAND_HIGH) / scale) - cdf((change + LOG_BAND_LOW) / scale),
    probabilityUp: 1 - cdf(0),
  };
}

/** Shared walk of the baselines: daily returns into a variance engine, one forecast per close. */
abstract class EngineBaseline implements DistributionForecaster {
  #last: DailyClose | undefined;
  #latest: LogForecast | undefined;

  constructor(
    protected readonly horizon: number,
    protected readonly engine: VolatilityEngine,
  ) {}

  get latest(): LogForecast | undefined {
    return this.#latest;
  }

  observe(close: DailyClose): void {
    const last = this.#last;
    if (last !== undefined) {
      const gap = close.day - last.day;
      this.engine.update(Math.log(close.price / last.price) / Math.sqrt(gap));
    }
    this.resolve(close);
    this.#last = close;
    this.#latest = this.engine.ready ? this.issue(close) : undefined;
  }

  /** Learns from the outcome of the forecast that targeted this close (FHS only). */
  protected resolve(_close: DailyClose): void {}

  protected abstract issue(close: DailyClose): LogForecast;
}

/** Normal distribution with a given variance engine (random walk with rolling or EWMA volatility). */
class NormalBaseline extends EngineBaseline {
  protected issue(close: DailyClose): LogForecast {
    return forecastFrom(
      close.price,
      Math.sqrt(this.engine.horizonVariance(this.horizon)),
      normalCdf,
      normalQuantile,
    );
  }
}

/** Sample variance of the last `window` daily returns (zero mean), flat term structure. */
export class RollingVolatility implements VolatilityEngine {
  readonly #returns: number[] = [];

  constructor(private readonly window: number) {}

  get ready(): boolean {
    return this.#returns.length > 0;
  }

  get nextVariance(): number {
    let sum = 0;
    for (const r of this.#returns) sum += r * r;
    return Math.max(sum / this.#returns.length, MIN_DAILY_VARIANCE);
  }

  update(dailyReturn: number): void {
    this.#returns.push(dailyReturn);
    if (this.#returns.length > this.window) this.#returns.shift();
  }

  horizonVariance(horizon: number): number {
    return horizon * this.nextVariance;
  }

  snapshot(): unknown {
    return [...this.#returns];
  }

  restore(state: unknown): void {
    this.#returns.splice(0, this.#returns.length, ...(state as number[]));
  }
}

/**
 * EWMA (λ 0.94) filtered historical simulation: the h-day scale σ√h times the empirical quantiles
 * of all past standardised h-day outcomes (realised log change / scale stated for it), with a
 * normal prior of 20√h pseudo-observations while few exist. No recalibration.
 */
class EwmaFhsBaseline extends EngineBaseline {
  readonly #residuals: CenteredResiduals;
  readonly #pending = new Map<number, { logPrice: number; scale: number }>();

  constructor(horizon: number) {
    super(horizon, new EwmaVolatility(0.94));
    this.#residuals = new CenteredResiduals(Number.POSITIVE_INFINITY, 20 * Math.sqrt(horizon), false);
  }

  protected override resolve(close: DailyClose): void {
    const pending = this.#pending.get(close.day);
    if (pending === undefined) return;
    this.#pending.delete(close.day);
    this.#residuals.record((Math.log(close.price) - pending.logPrice) / pending.scale);
  }

  protected issue(close: DailyClose): LogForecast {
    const scale = Math.sqrt(this.engine.horizonVariance(this.horizon));
    this.#pending.set(close.day + this.horizon, { logPrice: Math.log(close.price), scale });
    return forecastFrom(
      close.price,
      scale,
      (z) => this.#residuals.cdf(z),
      (p) => this.#residuals.quantile(p),
    );
  }
}

/**
 * GARCH(1,1) with Student-t innovations by maximum likelihood (the series' own fit, no pooling, no
 * bad-tick filter, no recalibration); the h-day change is taken as a unit-variance t with
 * ν_h = 4 + (ν − 4)·h degrees of freedom (the excess kurtosis of a sum of h independent t shrinks
 * as 1/h) scaled by the GARCH h-day variance.
 */
class GarchBaseline extends EngineBaseline {
  constructor(horizon: number) {
    super(horizon, new GarchVolatility({ poolingCount: 0 }));
  }

  protected issue(close: DailyClose): LogForecast {
    const nu = (this.engine as GarchVolatility).parameters!.nu;
    const nuH = nu > 4 ? 4 + (nu - 4) * this.horizon : nu;
    return forecastFrom(
      close.price,
      Math.sqrt(this.engine.horizonVariance(this.horizon)),
      (z) => unitStudentCdf(z, nuH),
      (p) => unitStudentQuantile(p, nuH),
    );
  }
}

/** A fresh baseline forecaster for `horizon`. */
export function createBaseline(name: BaselineName, horizon: number): DistributionForecaster {
  switch (name) {
    case "rw-vol90":
      return new NormalBaseline(horizon, new RollingVolatility(90));
    case "ewma-normal":
      return new NormalBaseline(horizon, new EwmaVolatility(0.94));
    case "ewma-fhs":
      return new EwmaFhsBaseline(horizon);
    case "garch":
      return new GarchBaseline(horizon);
  }
}
