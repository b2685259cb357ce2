/**
 * Execution worker threads started before the node (see {@link preloadExecutionWorkers}). This module
 * imports nothing of the node but the default number of workers, so that a command can load it, and
 * start the workers, before it loads the rest.
 */
import { Worker } from "node:worker_threads";
import { defaultCallWorkers } from "../../config/call-workers.js";
import { sourceWorkerBootstrap } from "./source-worker.js";

/** The `workerData` of a preloaded worker: it waits for its settings (or {@link DISMISSED}) by message. */
export const PRELOADED = "preloaded";
/** Tells a preloaded worker that no pool needs it: it exits once its code is loaded. */
export const DISMISSED = "dismissed";

const waiting: Worker[] = [];

/**
 * Starts `count` execution worker threads at once (by default as many as a node starts), with no
 * settings yet: each loads its code (about a second on a small machine) while the node loads and
 * opens its own, then waits. A {@link CallWorkerPool} takes them ({@link takePreloadedWorker}) and
 * posts each its settings; the command dismisses those left over ({@link dismissPreloadedWorkers}).
 * A waiting worker does not keep the process alive. Returns how many were started.
 */
export function preloadExecutionWorkers(count = defaultCallWorkers()): number {
  for (let i = 0; i < count; i++) {
    const worker = startExecutionWorker(PRELOADED);
    worker.unref();
    // One that fails to load is simply not there to take: the pool starts its own.
    worker.once("error", () => dropWaiting(worker));
    worker.once("exit", () => dropWaiting(worker));
    waiting.push(worker);
  }
  return count;
}

/** A preloaded worker still waiting for its settings, taken out of the waiting ones; undefined when none is left. */
export function takePreloadedWorker(): Worker | undefined {
  const worker = waiting.shift();
  worker?.removeAllListeners("error").removeAllListeners("exit");
  return worker;
}

/**
 * Tells the preloaded workers no pool took that they are not needed: they exit once their code is
 * loaded (resolves then; a caller need not wait).
 */
export function dismissPreloadedWorkers(): Promise<void> {
  const dismissed = waiting.splice(0);
  const exits = dismissed.map(
    (worker) => new Promise<void>((resolve) => worker.once("exit", () => resolve())),
  );
  for (const worker of dismissed) worker.postMessage(DISMISSED);
  return Promise.all(exits).then(() => undefined);
}

/**
 * Starts the worker program (`execution-worker.ts`, which composes a worker thread) with
 * `workerData`: the built module, or, when this module runs from its TypeScript source (tests), the
 * source module through tsx's loader, which workers do not inherit.
 */
export function startExecutionWorker(workerData: unknown): Worker {
  const fromSource = import.meta.url.endsWith(".ts");
  const program = new URL(
    fromSource ? "../../execution-worker.ts" : "../../execution-worker.js",
    import.meta.url,
  );
  if (!fromSource) return new Worker(program, { workerData });
  return new Worker(sourceWorkerBootstrap(program), { eval: true, workerData });
}

function dropWaiting(worker: Worker): void {
  const index = waiting.indexOf(worker);
  if (index >= 0) waiting.splice(index, 1);
}
