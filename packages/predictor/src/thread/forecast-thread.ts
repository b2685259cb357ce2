import { Worker } from "node:worker_threads";
import type { BacktestOptions, BacktestReport } from "../backtest.js";
import { InsufficientHistoryError } from "../errors.js";
import type { ModelOptions } from "../model-options.js";
import type { Prediction, PricePoint } from "../types.js";
import type { ForecastAnswer, ForecastFailure, ForecastTask } from "./messages.js";
import { sourceWorkerBootstrap } from "./source-worker.js";

/** The forecast thread has as many tasks as it may hold: the caller should retry later. */
export class ForecastBusyError extends Error {
  override readonly name = "ForecastBusyError";
  constructor(readonly queued: number) {
    super(`forecast thread busy: ${queued} forecasts queued`);
  }
}

/** Limits of a {@link ForecastThread}. */
export interface ForecastThreadOptions {
  /** Tasks waiting or running at most; more are refused with {@link ForecastBusyError} (default 16). */
  readonly maxQueued?: number;
  /** A task running longer stops the thread and fails every queued task (default 60 s). */
  readonly taskTimeoutMs?: number;
  /** Heap of the thread in MiB at most (default 512). */
  readonly maxHeapMb?: number;
}

interface Waiting {
  readonly resolve: (value: Prediction | BacktestReport) => void;
  readonly reject: (error: Error) => void;
}

type NewTask = ForecastTask extends infer T ? (T extends ForecastTask ? Omit<T, "id"> : never) : never;

/**
 * Forecasts on a worker thread of their own, so that a server never runs the model on the thread
 * that answers its requests: a prediction over years of closes costs hundreds of milliseconds and a
 * backtest seconds. Tasks run one at a time in arrival order; the queue is bounded, and the thread
 * starts at the first task and does not keep the process alive.
 *
 * @example
 * const thread = new ForecastThread();
 * const prediction = await thread.predict(points, 7);
 * await thread.close();
 */
export class ForecastThread {
  readonly #maxQueued: number;
  readonly #taskTimeoutMs: number;
  readonly #maxHeapMb: number;
  readonly #waiting = new Map<number, Waiting>();
  #worker: Worker | undefined;
  #nextId = 1;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: ForecastThreadOptions = {}) {
    this.#maxQueued = options.maxQueued ?? 16;
    this.#taskTimeoutMs = options.taskTimeoutMs ?? 60_000;
    this.#maxHeapMb = options.maxHeapMb ?? 512;
  }

  /** Tasks waiting or running now. */
  get queued(): number {
    return this.#waiting.size;
  }

  /** {@link predict} on the thread. */
  predict(history: readonly PricePoint[], horizon: number, options?: ModelOptions): Promise<Prediction> {
    return this.#submit({ kind: "predict", history, horizon, options }) as Promise<Prediction>;
  }

  /** {@link backtest} on the thread. */
  backtest(
    series: readonly PricePoint[],
    horizon: number,
    options?: BacktestOptions,
  ): Promise<BacktestReport> {
    return this.#submit({ kind: "backtest", series, horizon, options }) as Promise<BacktestReport>;
  }

  /** Stops the thread; queued tasks fail. The next task starts a new one. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#reset(new Error("forecast thread closed"));
    await worker?.terminate();
  }

  #submit(task: NewTask): Promise<Prediction | BacktestReport> {
    if (this.#waiting.size >= this.#maxQueued)
      return Promise.reject(new ForecastBusyError(this.#waiting.size));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#started().postMessage({ ...task, id } as ForecastTask);
      this.#armTimer();
    });
  }

  #started(): Worker {
    if (this.#worker) return this.#worker;
    const worker = startWorker(this.#maxHeapMb);
    worker.unref();
    worker.on("message", (answer: ForecastAnswer) => this.#settle(answer));
    worker.on("error", (error) => this.#reset(error));
    worker.on("exit", (code) => {
      if (this.#worker === worker) this.#reset(new Error(`forecast thread exited with code ${code}`));
    });
    this.#worker = worker;
    return worker;
  }

  #settle(answer: ForecastAnswer): void {
    const waiting = this.#waiting.get(answer.id);
    if (!waiting) return;
    this.#waiting.delete(answer.id);
    this.#armTimer();
    if (answer.ok) waiting.resolve(answer.value);
    else waiting.reject(failureError(answer.error));
  }

  /** One timer for the task at the head of the queue: restarted whenever a task ends. */
  #armTimer(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#waiting.size === 0) return;
    this.#timer = setTimeout(() => {
      const worker = this.#worker;
      this.#reset(new Error(`forecast took longer than ${this.#taskTimeoutMs} ms`));
      void worker?.terminate();
    }, this.#taskTimeoutMs);
    this.#timer.unref();
  }

  #reset(error: Error): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#worker = undefined;
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const w of waiting) w.reject(error);
  }
}

function failureError(failure: ForecastFailure): Error {
  if (failure.kind === "history") return new InsufficientHistoryError(failure.required, failure.available);
  return failure.kind === "range" ? new RangeError(failure.message) : new Error(failure.message);
}

/**
 * Starts the worker program: the built module next to this one, or, when this module runs from its
 * TypeScript source (tests), the source module through tsx's loader, which workers do not inherit.
 */
function startWorker(maxHeapMb: number): Worker {
  const fromSource = import.meta.url.endsWith(".ts");
  const program = new URL(fromSource ? "./forecast-worker.ts" : "./forecast-worker.js", import.meta.url);
  const options = { name: "forecast", resourceLimits: { maxOldGenerationSizeMb: maxHeapMb } };
  if (!fromSource) return new Worker(program, options);
  return new Worker(sourceWorkerBootstrap(program), { ...options, eval: true });
}
