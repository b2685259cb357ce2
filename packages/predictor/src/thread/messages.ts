import type { BacktestOptions, BacktestReport } from "../backtest.js";
import type { ModelOptions } from "../model-options.js";
import type { Prediction, PricePoint } from "../types.js";

/** A task for the forecast thread. */
export type ForecastTask =
  | {
      readonly id: number;
      readonly kind: "predict";
      readonly history: readonly PricePoint[];
      readonly horizon: number;
      readonly options: ModelOptions | undefined;
    }
  | {
      readonly id: number;
      readonly kind: "backtest";
      readonly series: readonly PricePoint[];
      readonly horizon: number;
      readonly options: BacktestOptions | undefined;
    };

/** Why a task failed, in a form that crosses the thread boundary. */
export type ForecastFailure =
  | { readonly kind: "history"; readonly required: number; readonly available: number }
  | { readonly kind: "range" | "other"; readonly message: string };

/** The forecast thread's answer to one task. */
export type ForecastAnswer =
  | { readonly id: number; readonly ok: true; readonly value: Prediction | BacktestReport }
  | { readonly id: number; readonly ok: false; readonly error: ForecastFailure };
