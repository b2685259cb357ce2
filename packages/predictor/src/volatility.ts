import {
  DEFAULT_GARCH_SHAPE,
  fitGarch,
  type GarchParameters,
  type GarchShape,
  garchHorizonVariance,
  meanSquare,
  pooledShape,
} from "./garch.js";
import {
  coordinatesToHarShape,
  DEFAULT_HAR_SHAPE,
  fitHar,
  HAR_WINDOWS,
  HarComponents,
  type HarShape,
  harHorizonVariance,
  harOmega,
  harShapeToCoordinates,
} from "./har.js";

/** Floor of the daily variance (a 0.01 % daily move), so a flat series still has a finite scale. */
export const MIN_DAILY_VARIANCE = 1e-8;

/**
 * A conditional variance model of daily log returns, updated one return at a time. Returns are
 * "daily": a return over a gap of g days is passed as r / √g.
 */
export interface VolatilityEngine {
  /** Whether at least one return has been seen. */
  readonly ready: boolean;
  /** Variance forecast of the next daily return. */
  readonly nextVariance: number;
  /** Adds the next daily return. */
  update(dailyReturn: number): void;
  /** Variance of the sum of the next `horizon` daily returns. */
  horizonVariance(horizon: number): number;
  /** An opaque copy of the state, for {@link restore}. */
  snapshot(): unknown;
  /** Returns to a state taken by {@link snapshot} (undoing the updates since). */
  restore(state: unknown): void;
}

/** RiskMetrics EWMA variance σ²ₜ₊₁ = λσ²ₜ + (1 − λ)rₜ², started at the first squared return; flat term structure. */
export class EwmaVolatility implements VolatilityEngine {
  #variance = 0;
  #count = 0;

  /** @param decay λ, e.g. 0.94. */
  constructor(private readonly decay: number) {}

  get ready(): boolean {
    return this.#count > 0;
  }

  get nextVariance(): number {
    return Math.max(this.#variance, MIN_DAILY_VARIANCE);
  }

  update(dailyReturn: number): void {
    const square = dailyReturn * dailyReturn;
    // Bias-corrected start: the average of the squares seen while they are few.
    const weight = Math.max(1 - this.decay, 1 / (this.#count + 1));
    this.#variance = this.#count === 0 ? square : (1 - weight) * this.#variance + weight * square;
    this.#count += 1;
  }

  horizonVariance(horizon: number): number {
    return horizon * this.nextVariance;
  }

  snapshot(): unknown {
    return [this.#variance, this.#count];
  }

  restore(state: unknown): void {
    [this.#variance, this.#count] = state as [number, number];
  }
}

/** Settings of {@link GarchVolatility}. */
export interface GarchSettings {
  /** Refit the parameters by maximum likelihood after every this many returns. */
  refitEvery: number;
  /** Pseudo-count of returns for which the pooled shape weighs as much as the series' own fit. */
  poolingCount: number;
  /** Fit at most this many of the latest returns (bounds the cost of a refit). */
  fitWindow: number;
  /** Pooled shape a short history leans on. */
  pooled: GarchShape;
}

/** Default {@link GarchSettings}: quarterly refits on up to eight years, pooled weight of two years. */
export const DEFAULT_GARCH_SETTINGS: Readonly<GarchSettings> = Object.freeze({
  refitEvery: 91,
  poolingCount: 730,
  fitWindow: 2920,
  pooled: DEFAULT_GARCH_SHAPE,
});

/** Fewest returns before the series' own maximum-likelihood fit is tried (the pooled shape until then). */
const MIN_FIT_RETURNS = 120;

/**
 * GARCH(1,1) with Student-t innovations, refitted by maximum likelihood (variance targeting) every
 * `refitEvery` returns on the latest `fitWindow` returns and shrunk towards the pooled shape for
 * short histories. Between refits the variance follows the GARCH recursion.
 */
export class GarchVolatility implements VolatilityEngine {
  readonly #settings: GarchSettings;
  readonly #returns: number[] = [];
  #params: GarchParameters | undefined;
  #variance = 0;
  #sinceFit = 0;

  constructor(settings: Partial<GarchSettings> = {}) {
    this.#settings = { ...DEFAULT_GARCH_SETTINGS, ...settings };
  }

  /** Parameters in use (undefined before the first return). */
  get parameters(): GarchParameters | undefined {
    return this.#params;
  }

  get ready(): boolean {
    return this.#returns.length > 0;
  }

  get nextVariance(): number {
    return Math.max(this.#variance, MIN_DAILY_VARIANCE);
  }

  update(dailyReturn: number): void {
    this.#returns.push(dailyReturn);
    this.#sinceFit += 1;
    if (
      this.#params === undefined ||
      this.#sinceFit >= this.#settings.refitEvery ||
      this.#returns.length < MIN_FIT_RETURNS
    ) {
      this.#refit();
      return;
    }
    const p = this.#params;
    this.#variance = p.omega + p.alpha * dailyReturn * dailyReturn + p.beta * this.#variance;
  }

  horizonVariance(horizon: number): number {
    const p = this.#params;
    if (p === undefined) return horizon * MIN_DAILY_VARIANCE;
    return Math.max(garchHorizonVariance(this.nextVariance, p, horizon), horizon * MIN_DAILY_VARIANCE);
  }

  snapshot(): unknown {
    return {
      length: this.#returns.length,
      params: this.#params,
      variance: this.#variance,
      sinceFit: this.#sinceFit,
    };
  }

  restore(state: unknown): void {
    const s = state as {
      length: number;
      params: GarchParameters | undefined;
      variance: number;
      sinceFit: number;
    };
    this.#returns.length = s.length;
    this.#params = s.params;
    this.#variance = s.variance;
    this.#sinceFit = s.sinceFit;
  }

  /** Refits the shape (pooled for short histories) and re-runs the recursion over the fit window. */
  #refit(): void {
    const { fitWindow, poolingCount, pooled } = this.#settings;
    const window = this.#returns.slice(-fitWindow);
    // Warm start from the shape in use: successive windows overlap, so the optimum moves little.
    const start = this.#params ?? pooled;
    const own = window.length >= MIN_FIT_RETURNS ? fitGarch(window, start) : pooled;
    const shape = pooledShape(own, window.length, poolingCount, pooled);
    const v = Math.max(meanSquare(window), MIN_DAILY_VARIANCE);
    const params = { ...shape, omega: v * (1 - shape.alpha - shape.beta) };
    let variance = v;
    for (const r of window) variance = params.omega + params.alpha * r * r + params.beta * variance;
    this.#params = params;
    this.#variance = variance;
    this.#sinceFit = 0;
  }
}

/**
 * HAR variance on daily squared returns (1-, 5- and 22-day means): with daily closes only there is
 * no intraday realised variance, so the squared daily return stands in for it. The weights are
 * refitted by quasi-maximum likelihood (variance targeting) every `refitEvery` returns on the
 * latest `fitWindow` returns and shrunk towards {@link DEFAULT_HAR_SHAPE} for short histories;
 * between refits the components roll forward with each return.
 */
export class HarVolatility implements VolatilityEngine {
  readonly #settings: GarchSettings;
  readonly #returns: number[] = [];
  #shape: HarShape = DEFAULT_HAR_SHAPE;
  #omega = 0;
  #components = new HarComponents(0);
  #sinceFit = 0;

  /** @param settings refit cadence, fit window and pooling weight (the `pooled` GARCH shape is not used). */
  constructor(settings: Partial<GarchSettings> = {}) {
    this.#settings = { ...DEFAULT_GARCH_SETTINGS, ...settings };
  }

  /** Weights in use. */
  get shape(): HarShape {
    return this.#shape;
  }

  get ready(): boolean {
    return this.#returns.length > 0;
  }

  get nextVariance(): number {
    return Math.max(this.#components.next(this.#shape, this.#omega), MIN_DAILY_VARIANCE);
  }

  update(dailyReturn: number): void {
    this.#returns.push(dailyReturn);
    this.#components.add(dailyReturn * dailyReturn);
    this.#sinceFit += 1;
    if (this.#sinceFit >= this.#settings.refitEvery || this.#returns.length <= MIN_FIT_RETURNS) this.#refit();
  }

  horizonVariance(horizon: number): number {
    const total = harHorizonVariance(this.#components, this.#shape, this.#omega, horizon);
    return Math.max(total, horizon * MIN_DAILY_VARIANCE);
  }

  snapshot(): unknown {
    return {
      length: this.#returns.length,
      shape: this.#shape,
      omega: this.#omega,
      components: this.#components.copy(),
      sinceFit: this.#sinceFit,
    };
  }

  restore(state: unknown): void {
    const s = state as {
      length: number;
      shape: HarShape;
      omega: number;
      components: HarComponents;
      sinceFit: number;
    };
    this.#returns.length = s.length;
    this.#shape = s.shape;
    this.#omega = s.omega;
    this.#components = s.components.copy();
    this.#sinceFit = s.sinceFit;
  }

  #refit(): void {
    const { fitWindow, poolingCount } = this.#settings;
    const window = this.#returns.slice(-fitWindow);
    const own = window.length >= MIN_FIT_RETURNS ? fitHar(window, this.#shape) : DEFAULT_HAR_SHAPE;
    const w = window.length / (window.length + poolingCount);
    const a = harShapeToCoordinates(own);
    const b = harShapeToCoordinates(DEFAULT_HAR_SHAPE);
    this.#shape = coordinatesToHarShape(a.map((x, i) => w * x + (1 - w) * b[i]!));
    const v = Math.max(meanSquare(window), MIN_DAILY_VARIANCE);
    this.#omega = harOmega(this.#shape, v);
    const components = new HarComponents(v);
    for (const r of window.slice(-HAR_WINDOWS[2])) components.add(r * r);
    this.#components = components;
    this.#sinceFit = 0;
  }
}

/**
 * The equal-weight combination of several variance models: each is fed every return, and the
 * forecasts (next-day and h-day variance) are the mean of theirs.
 */
export class CombinedVolatility implements VolatilityEngine {
  constructor(private readonly engines: readonly VolatilityEngine[]) {}

  get ready(): boolean {
    return this.engines.every((e) => e.ready);
  }

  get nextVariance(): number {
    return this.engines.reduce((sum, e) => sum + e.nextVariance, 0) / this.engines.length;
  }

  update(dailyReturn: number): void {
    for (const e of this.engines) e.update(dailyReturn);
  }

  horizonVariance(horizon: number): number {
    return this.engines.reduce((sum, e) => sum + e.horizonVariance(horizon), 0) / this.engines.length;
  }

  snapshot(): unknown {
    return this.engines.map((e) => e.snapshot());
  }

  restore(state: unknown): void {
    this.engines.forEach((e, i) => {
      e.restore((state as unknown[])[i]);
    });
  }
}

/**
 * Robust filtering of bad ticks in front of a {@link VolatilityEngine}. A daily return beyond
 * `threshold` standard deviations of the engine's forecast is clipped to that bound (a Huber-type
 * update); when the next return reverses it (opposite sign, and the two together move less than
 * half of the first), the first close is taken for a bad tick: the engine is put back to its state
 * before it and fed the two-day return instead.
 */
export class BadTickFilter {
  #suspect: { logReturn: number; gap: number; state: unknown } | undefined;

  constructor(
    /** The engine fed with filtered returns. */
    readonly engine: VolatilityEngine,
    private readonly threshold: number,
  ) {}

  /** Adds the log return between two closes `gap` days apart. */
  update(logReturn: number, gap: number): void {
    const suspect = this.#suspect;
    this.#suspect = undefined;
    if (suspect !== undefined && logReturn * suspect.logReturn < 0) {
      const merged = suspect.logReturn + logReturn;
      if (Math.abs(merged) < 0.5 * Math.abs(suspect.logReturn)) {
        this.engine.restore(suspect.state);
        this.engine.update(merged / Math.sqrt(suspect.gap + gap));
        return;
      }
    }
    const daily = logReturn / Math.sqrt(gap);
    const bound = this.threshold * Math.sqrt(this.engine.nextVariance);
    if (this.engine.ready && Math.abs(daily) > bound) {
      this.#suspect = { logReturn, gap, state: this.engine.snapshot() };
      this.engine.update(Math.sign(daily) * bound);
      return;
    }
    this.engine.update(daily);
  }
}
