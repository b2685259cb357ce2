import type { Worker } from "node:worker_threads";
import type { Block } from "@ethereumjs/block";
import type { CallRequest } from "@strata/protocol";
import type { Logger } from "pino";
import { BusyError, ExecutionError, RevertError, runStopped } from "../../errors/domain-errors.js";
import type { BoundedStructure, StructureSize } from "../../metrics/bounded-structure.js";
import type { PendingContext } from "../../producer/pending-execution.js";
import type { AccessListOutcome, CallOffload } from "../call/call-executor.js";
import type { CallResult } from "../call/call-result-cache.js";
import { type RunLimit, timeLeft } from "../evm/run-limits.js";
import { STEPS_KEPT, type StateStep } from "../state/state-carry.js";
import {
  type CallWorkerAnswer,
  type CallWorkerData,
  type CallWorkerJob,
  type CallWorkerPendingHint,
  type CallWorkerReady,
  type CallWorkerSettings,
  type CallWorkerSizes,
  type CallWorkerStateStep,
  cancel,
  cancelFlags,
  SIZES_REQUEST,
  sharedNow,
} from "./call-worker-messages.js";
import type { HeavyTask } from "./heavy-tasks.js";
import { receivedError } from "./worker-errors.js";
import { startExecutionWorker, takePreloadedWorker } from "./worker-preload.js";

/** How long a worker may take to finish its calls and close its store when the pool closes. */
const CLOSE_TIMEOUT_MS = 10_000;

interface Pending {
  readonly resolve: (answer: CallWorkerAnswer | undefined) => void;
  readonly reject: (error: Error) => void;
}

/** One worker thread and the calls it has not answered yet. */
interface Slot {
  readonly worker: Worker;
  /** The flags that call the worker's jobs off (shared with it). */
  readonly cancels: Int32Array;
  readonly pending: Map<number, Pending>;
  ready: boolean;
  /** The worker has exited: it takes no more jobs. */
  gone: boolean;
  /** Settles once the worker can take calls, or has exited. */
  started: Promise<void>;
  exited: Promise<void>;
  /** The worker's caches as it last reported them. */
  sizes: readonly StructureSize[];
  /** Called once the worker next reports its caches (or exits). */
  readonly sizesWaiters: (() => void)[];
}

/**
 * Runs `eth_call` and every other heavy execution ({@link HeavyTask}: estimates, traces,
 * simulations, block builds, reads at `pending`) on worker threads. Each worker opens the node's
 * LMDB store itself (LMDB serves many threads of one process from one memory map) and executes
 * against committed blocks, or the pending block it makes from a posted {@link PendingContext}, so
 * execution uses other cores while the main thread serves HTTP, the pool and block production, and
 * never runs EVM code itself. A job goes to the worker with the fewest jobs in hand; a job posted
 * while the workers start waits for them. Only once every worker has gone (after failures) do
 * callers run calls in-thread. The node starts the workers with itself ({@link start}).
 */
export class CallWorkerPool implements CallOffload {
  private readonly slots: Slot[] = [];
  /** The worker last told to prepare for a new head: of the workers with the fewest jobs, it takes the next. */
  private prepared: Slot | undefined;
  private nextId = 1;
  private closed = false;
  /** The round of {@link refreshSizes} under way, shared by concurrent callers. */
  private refreshing: Promise<void> | undefined;
  /** Calls sent to workers so far (answered or not). */
  dispatched = 0;
  /** Steps of blocks committed in this turn, posted together (see {@link recordStateStep}). */
  private steps: StateStep[] = [];

  constructor(
    private readonly settings: CallWorkerSettings,
    private readonly workers: number,
    private readonly log?: Logger,
  ) {}

  /**
   * Runs `request` at `block` on a worker within `limit`: its outcome, or undefined when no worker
   * can run it (none left after failures, or the worker cannot see the block) and the caller should
   * run it itself. When the limit's signal is aborted, the worker stops the call (it sees a shared flag).
   * `pending` is given when `block` is the pending block: the worker makes that block from it.
   */
  async call(
    request: CallRequest,
    block: Block,
    limit: RunLimit,
    pending?: PendingContext,
  ): Promise<CallResult | undefined> {
    const answer = await this.post(limit, (id, timeoutMs, postedAt) => ({
      id,
      timeoutMs,
      postedAt,
      request,
      blockHash: block.hash(),
      ...(pending ? { pending } : {}),
    }));
    return answer === undefined ? undefined : outcomeOf(answer);
  }

  /** Runs the estimate of `request` at `block` on a worker; undefined when no worker can run it. */
  async estimateGas(
    request: CallRequest,
    block: Block,
    limit: RunLimit,
    pending?: PendingContext,
  ): Promise<bigint | undefined> {
    if (!this.hasWorkers()) return undefined;
    const task: HeavyTask = {
      kind: "estimateGas",
      request,
      blockHash: block.hash(),
      ...(pending ? { pending } : {}),
    };
    const value = await this.run(task, limit);
    return value as bigint | undefined;
  }

  /** Builds the access list of `request` at `block` on a worker; undefined when no worker can run it. */
  async createAccessList(
    request: CallRequest,
    block: Block,
    limit: RunLimit,
    pending?: PendingContext,
  ): Promise<AccessListOutcome | undefined> {
    if (!this.hasWorkers()) return undefined;
    const task: HeavyTask = {
      kind: "createAccessList",
      request,
      blockHash: block.hash(),
      ...(pending ? { pending } : {}),
    };
    const value = await this.run(task, limit);
    return value as AccessListOutcome | undefined;
  }

  /**
   * Tells every worker what a committed block changed, so the state after it starts warm there. A
   * worker takes it before any job posted later (one port, in order). The steps of a run of blocks
   * committed together (`anvil_mine`) are posted once the run is announced, only the newest
   * {@link STEPS_KEPT}: a worker keeps no more.
   */
  recordStateStep(step: StateStep): void {
    if (this.closed) return;
    this.steps.push(step);
    if (this.steps.length === 1) queueMicrotask(() => this.postSteps());
  }

  /** Posts the steps recorded and not posted yet (see {@link recordStateStep}). */
  private postSteps(): void {
    const steps = this.steps.slice(-STEPS_KEPT);
    this.steps = [];
    const next = this.pick();
    if (next && steps.length > 0) this.prepared = next;
    for (const step of steps) {
      for (const slot of this.slots) {
        if (!slot.gone)
          slot.worker.postMessage({ step, prepare: slot === next } satisfies CallWorkerStateStep);
      }
    }
  }

  /**
   * Tells the worker the next job goes to about the header-only pending block of a new head (see
   * {@link CallWorkerPendingHint}), after the steps not posted yet.
   */
  preparePending(context: PendingContext): void {
    if (this.closed) return;
    this.postSteps();
    const next = this.pick();
    if (!next) return;
    this.prepared = next;
    next.worker.postMessage({ prepareCall: context } satisfies CallWorkerPendingHint);
  }

  /** Whether jobs can be posted (workers running or starting); false once all have gone or the pool closed. */
  hasWorkers(): boolean {
    this.start();
    return !this.closed && this.slots.some((slot) => !slot.gone);
  }

  /**
   * Runs `task` on a worker within `limit`: its result; undefined only when the worker could not
   * run it here (an estimate at a block it cannot see) or no worker is left.
   */
  async run(task: HeavyTask, limit: RunLimit): Promise<unknown> {
    const answer = await this.post(limit, (id, timeoutMs, postedAt) => ({
      id,
      timeoutMs,
      postedAt,
      kind: "task",
      task,
    }));
    if (answer === undefined || answer.kind === "unavailable") return undefined;
    if (answer.kind === "value") return answer.value;
    if (answer.kind === "error") throw receivedError(answer.error);
    throw new Error(`unexpected worker answer ${answer.kind}`);
  }

  /**
   * Posts the job `make` builds to the worker with the fewest jobs in hand, once one is ready
   * (workers start with the node; a job posted while they start waits for them), and settles with
   * its answer; undefined when no worker is left. Errors of the call protocol (busy, stopped,
   * refused, crashed) are thrown.
   */
  private async post(
    limit: RunLimit,
    make: (id: number, timeoutMs: number, postedAt: number) => CallWorkerJob,
  ): Promise<CallWorkerAnswer | undefined> {
    this.start();
    let slot = this.pick();
    // The time left on arrival: waiting for a worker to start does not count against the run.
    const budget = timeLeft(limit);
    while (!slot && !this.closed && this.slots.some((candidate) => !candidate.gone)) {
      // Starting workers: the job waits for the first to be ready (its queue wait counts from then).
      await Promise.race(
        this.slots.filter((candidate) => !candidate.gone).map((candidate) => candidate.started),
      );
      slot = this.pick();
    }
    if (!slot) return undefined;
    // Steps go first: a job naming a block just committed finds its state warm.
    this.postSteps();
    const postedAt = sharedNow();
    const chosen = slot;
    const id = this.nextId++;
    this.dispatched++;
    const { signal } = limit;
    const callOff = (): void => cancel(chosen.cancels, id);
    signal?.addEventListener("abort", callOff, { once: true });
    return new Promise<CallWorkerAnswer | undefined>((resolve, reject) => {
      chosen.pending.set(id, { resolve, reject });
      chosen.worker.postMessage(make(id, budget, postedAt));
    }).finally(() => signal?.removeEventListener("abort", callOff));
  }

  /**
   * The workers' caches (decoded blocks, receipts, trie nodes) summed over the workers as they last
   * reported them ({@link refreshSizes}), named `worker_<cache>`; each bound is one worker's times the
   * number of workers.
   */
  boundedStructures(): BoundedStructure[] {
    const sums = new Map<string, { unit: StructureSize["unit"]; bound: number; size: number }>();
    for (const slot of this.slots) {
      if (slot.gone) continue;
      for (const { name, unit, bound, size } of slot.sizes) {
        const sum = sums.get(name);
        if (sum) sum.size += size;
        else sums.set(name, { unit, bound: bound * this.workers, size });
      }
    }
    return [...sums].map(([name, { unit, bound, size }]) => ({
      name: `worker_${name}`,
      unit,
      bound,
      size: () => size,
    }));
  }

  /**
   * Asks every ready worker for its caches' sizes; settles once all answered or `timeoutMs` passed (a
   * worker in the middle of a job answers after it, and its previous figures stand meanwhile).
   */
  refreshSizes(timeoutMs: number): Promise<void> {
    this.refreshing ??= (async () => {
      const answers = this.slots
        .filter((slot) => slot.ready)
        .map(
          (slot) =>
            new Promise<void>((resolve) => {
              slot.sizesWaiters.push(resolve);
              slot.worker.postMessage(SIZES_REQUEST);
            }),
        );
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      });
      await Promise.race([Promise.all(answers), timeout]);
      clearTimeout(timer);
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  /** Starts the workers unless started, and settles once each can take calls (or has failed to start). */
  async ready(): Promise<void> {
    this.start();
    await Promise.all(this.slots.map((slot) => slot.started));
  }

  /**
   * Lets every worker finish its calls, close its store and exit; calls a worker has not answered
   * within 10 s fail. A worker still starting has no call and only reads the store: it is stopped at
   * once rather than waited for (a node stopped right after its start would wait for its workers' boot).
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // A worker still starting may be inside a native call (opening the store), where terminating it
    // can abort the whole process: it is told to close once it has started (or it has exited).
    for (const slot of this.slots) void slot.started.then(() => slot.worker.postMessage("close"));
    await Promise.all(
      this.slots.map(async (slot) => {
        const timer = setTimeout(() => void slot.worker.terminate(), CLOSE_TIMEOUT_MS);
        await slot.exited;
        clearTimeout(timer);
      }),
    );
  }

  /** Starts the workers unless started (they open the store and warm up while the node starts serving). */
  start(): void {
    if (this.slots.length > 0 || this.closed) return;
    for (let i = 0; i < this.workers; i++) this.slots.push(this.spawn(this.settings));
  }

  /**
   * The ready worker with the fewest jobs in hand; of those equally loaded, the one last told to
   * prepare for a new head (it has the head's block and state ready), else the first.
   */
  private pick(): Slot | undefined {
    if (this.closed) return undefined;
    let best: Slot | undefined;
    for (const slot of this.slots) {
      if (!slot.ready) continue;
      const fewer = !best || slot.pending.size < best.pending.size;
      const asFew = best !== undefined && slot.pending.size === best.pending.size;
      if (fewer || (asFew && slot === this.prepared)) best = slot;
    }
    return best;
  }

  private spawn(settings: CallWorkerSettings): Slot {
    const cancels = cancelFlags();
    const worker = startWorker({ ...settings, cancels });
    const slot: Slot = {
      worker,
      cancels: new Int32Array(cancels),
      pending: new Map(),
      ready: false,
      gone: false,
      started: Promise.resolve(),
      exited: Promise.resolve(),
      sizes: [],
      sizesWaiters: [],
    };
    let started = (): void => {};
    slot.started = new Promise((resolve) => {
      started = resolve;
    });
    slot.exited = new Promise((resolve) => {
      worker.once("exit", (code) => {
        slot.ready = false;
        slot.gone = true;
        if (!this.closed) this.log?.warn({ code }, "execution worker exited; its calls run in-thread");
        // Calls it had not answered run in-thread instead, unless the node is stopping.
        for (const pending of slot.pending.values()) {
          if (this.closed) pending.reject(new ExecutionError("call stopped: the node is shutting down"));
          else pending.resolve(undefined);
        }
        slot.pending.clear();
        for (const waiter of slot.sizesWaiters.splice(0)) waiter();
        started();
        resolve();
      });
    });
    worker.on("error", (error) => this.log?.error({ err: error }, "eth_call worker failed"));
    worker.on("message", (message: CallWorkerAnswer | CallWorkerReady | CallWorkerSizes) => {
      if ("sizes" in message) {
        slot.sizes = message.sizes;
        for (const waiter of slot.sizesWaiters.splice(0)) waiter();
        return;
      }
      if ("ready" in message) {
        slot.ready = !this.closed;
        // Starting, it keeps the process alive (jobs may be waiting for it); ready, it does not.
        worker.unref();
        started();
        return;
      }
      const pending = slot.pending.get(message.id);
      if (!pending) return;
      slot.pending.delete(message.id);
      settle(message, pending);
    });
    return slot;
  }
}

function settle(answer: CallWorkerAnswer, pending: Pending): void {
  if (answer.kind === "busy") pending.reject(new BusyError(answer.message, answer.retryAfterMs));
  else if (answer.kind === "refused") pending.reject(new ExecutionError(answer.message));
  else if (answer.kind === "stopped") pending.reject(runStopped(answer.reason));
  else if (answer.kind === "crashed") pending.reject(new Error(answer.message));
  else pending.resolve(answer);
}

/** The outcome an answer stands for; undefined when the worker could not run the call. */
function outcomeOf(answer: CallWorkerAnswer): CallResult | undefined {
  if (answer.kind === "ok") return { ok: answer.data };
  if (answer.kind === "reverted") return { error: new RevertError(answer.reason, answer.data) };
  if (answer.kind === "failed") return { error: new ExecutionError(answer.message) };
  return undefined;
}

/**
 * An execution worker with `data`: one started ahead of the node and waiting (its code already
 * loaded, or loading) when there is one, told its settings by message; else a new one.
 */
function startWorker(data: CallWorkerData): Worker {
  const preloaded = takePreloadedWorker();
  if (!preloaded) return startExecutionWorker(data);
  // A waiting worker does not keep the process alive; a starting one of the pool does (see spawn).
  preloaded.ref();
  preloaded.postMessage(data);
  return preloaded;
}
