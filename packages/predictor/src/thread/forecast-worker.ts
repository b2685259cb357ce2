import { parentPort } from "node:worker_threads";
import { backtest } from "../backtest.js";
import { InsufficientHistoryError } from "../errors.js";
import { predict } from "../predict.js";
import type { ForecastAnswer, ForecastTask } from "./messages.js";

/** The forecast thread's program: runs each task it is sent, one at a time, and answers it. */
parentPort?.on("message", (task: ForecastTask) => {
  parentPort?.postMessage(run(task));
});

function run(task: ForecastTask): ForecastAnswer {
  try {
    const value =
      task.kind === "predict"
        ? predict(task.history, task.horizon, task.options)
        : backtest(task.series, task.horizon, task.options);
    return { id: task.id, ok: true, value };
  } catch (error) {
    if (error instanceof InsufficientHistoryError) {
      return {
        id: task.id,
        ok: false,
        error: { kind: "history", required: error.required, available: error.available },
      };
    }
    const message = error instanceof Error ? error.message : String(error);
    return {
      id: task.id,
      ok: false,
      error: { kind: error instanceof RangeError ? "range" : "other", message },
    };
  }
}
