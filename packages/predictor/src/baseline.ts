import type { LogForecast } from "./forecaster.js";
import { normalCdf, normalQuantile } from "./math.js";
import { HIT_TOLERANCE, INTERVAL_COVERAGE } from "./parameters.js";
import type { DailyClose } from "./types.js";

const Z_UPPER = normalQuantile(0.5 + INTERVAL_COVERAGE / 2);
const LOG_BAND_LOW = Math.log(1 - HIT_TOLERANCE);
const LOG_BAND_HIGH = Math.log(1 + HIT_TOLERANCE);

/**
 * The naive benchmark: a random walk. The point forecast is the latest price; the 80 % interval and
 * the ±5 % confidence come from a normal distribution of the log change with the historical
 * volatility (sample standard deviation of all daily log returns so far) scaled by √horizon.
 */
export class RandomWalkBaseline {
  readonly #horizon: number;
  #last: DailyClose | undefined;
  #returns = 0;
  #sum = 0;
  #sumSquares = 0;
  #latest: LogForecast | undefined;

  /** @param horizon forecast horizon in whole days. */
  constructor(horizon: number) {
    this.#horizon = horizon;
  }

  /** The forecast issued after the latest close (undefined until three closes have been seen). */
  get latest(): LogForecast | undefined {
    return this.#latest;
  }

  /** Feeds the next close (days in increasing order). */
  observe(close: DailyClose): void {
    const last = this.#last;
    if (last !== undefined) {
      const gap = close.day - last.day;
      const daily = Math.log(close.price / last.price) / Math.sqrt(gap);
      this.#returns += 1;
      this.#sum += daily;
      this.#sumSquares += daily * daily;
    }
    this.#last = close;
    this.#latest = this.#returns >= 2 ? this.#issue(close) : undefined;
  }

  #issue(close: DailyClose): LogForecast {
    const n = this.#returns;
    const mean = this.#sum / n;
    const variance = Math.max((this.#sumSquares - n * mean * mean) / (n - 1), 0);
    const scale = Math.sqrt(variance * this.#horizon);
    const confidence = scale > 0 ? normalCdf(LOG_BAND_HIGH / scale) - normalCdf(LOG_BAND_LOW / scale) : 1;
    return {
      originPrice: close.price,
      change: 0,
      lower: -Z_UPPER * scale,
      upper: Z_UPPER * scale,
      confidence,
    };
  }
}
