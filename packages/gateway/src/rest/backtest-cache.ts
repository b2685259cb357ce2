import { ForecastBusyError, ForecastThread, InsufficientHistoryError } from "@strata/predictor";
import { UnavailableError } from "./rest-errors.js";

/** The backtest summary `GET /v1/predictions/{asset}` reports. */
export interface BacktestSummary {
  readonly mape: number;
  readonly baselineMape: number;
  readonly coverage80: number;
  readonly calibrationError: number;
  readonly horizon: number;
}

/** Scored forecast origins per backtest at most: bounds the work of one request. */
const MAX_ORIGINS = 250;
const MAX_ENTRIES = 64;

/**
 * Walk-forward backtests of the prediction model on an asset's indexed daily closes, remembered per
 * asset, horizon and latest close (a new close computes a new one). They run on a forecast thread,
 * never on the thread that answers requests; concurrent requests for one key share one run, and a
 * full queue answers 503 rather than waiting.
 */
export class BacktestCache {
  readonly #entries = new Map<string, BacktestSummary | null>();
  readonly #running = new Map<string, Promise<BacktestSummary | null>>();
  readonly #thread: ForecastThread;

  constructor(thread: ForecastThread = new ForecastThread({ maxQueued: 8 })) {
    this.#thread = thread;
  }

  /** Backtests held, and their bound, for the metrics. */
  readonly held = { size: () => this.#entries.size, bound: MAX_ENTRIES };

  /** The backtest at `horizon` days over `closes` (unix seconds, price), or `null` with too little history. */
  async get(
    asset: string,
    horizon: number,
    closes: readonly { time: number; price: number }[],
  ): Promise<BacktestSummary | null> {
    const last = closes.at(-1);
    if (last === undefined) return null;
    const key = `${asset}/${horizon}/${closes.length}/${last.time}/${last.price}`;
    if (this.#entries.has(key)) return this.#entries.get(key)!;
    let running = this.#running.get(key);
    if (!running) {
      running = this.#run(horizon, closes).finally(() => this.#running.delete(key));
      this.#running.set(key, running);
    }
    const summary = await running;
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, summary);
    return summary;
  }

  /** Stops the forecast thread. */
  close(): Promise<void> {
    return this.#thread.close();
  }

  async #run(
    horizon: number,
    closes: readonly { time: number; price: number }[],
  ): Promise<BacktestSummary | null> {
    try {
      const step = Math.max(1, Math.ceil(closes.length / MAX_ORIGINS));
      const report = await this.#thread.backtest(closes, horizon, { step });
      return {
        mape: report.model.mape,
        baselineMape: report.baselines["rw-vol90"].mape,
        coverage80: report.model.coverage,
        calibrationError: report.model.calibrationError,
        horizon,
      };
    } catch (error) {
      if (error instanceof InsufficientHistoryError) return null;
      if (error instanceof ForecastBusyError) throw new UnavailableError("backtests busy: retry shortly");
      throw error;
    }
  }
}
