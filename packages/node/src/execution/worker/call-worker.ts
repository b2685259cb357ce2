/**
 * What an execution worker thread runs (see {@link CallWorkerPool}; its program is
 * `execution-worker.ts`, which gives it the consensus engine's replay hooks): it opens the node's LMDB
 * store read-only, keeps its own decoded blocks, trie node cache and head state, and answers each
 * call it is sent with the same {@link CallExecutor} the main thread uses, and each heavy task
 * (estimate, trace, simulation, block build, pending read) with a {@link HeavyTaskRunner}; asked for
 * its caches' sizes (metrics), it answers between two jobs. Jobs at
 * `pending` carry a context from which it makes the pending block itself ({@link PendingBuilds}).
 * Jobs run one at a time, in the order they came; one that waited longer than the queue limit is
 * refused.
 */
import type { MessagePort } from "node:worker_threads";
import type { Block } from "@ethereumjs/block";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import type { NetworkFile } from "../../config/network.js";
import {
  BusyError,
  ExecutionError,
  NotFoundError,
  RevertError,
  RunStoppedError,
} from "../../errors/domain-errors.js";
import { type BoundedStructure, sizesNow } from "../../metrics/bounded-structure.js";
import { PendingBuilds } from "../../producer/pending-builds.js";
import type { ChainStore } from "../../storage/chain-store.js";
import { CallExecutor } from "../call/call-executor.js";
import { enforceRunLimits, type RunLimit, runLimit } from "../evm/run-limits.js";
import { Simulator } from "../simulate/simulator.js";
import { openChainStorage } from "../state/chain-storage.js";
import { STEPS_KEPT, type StateStep, type StepValidator, WarmStates } from "../state/state-carry.js";
import { type ReplayHooksProvider, TracingService } from "../tracing/tracing-service.js";
import {
  type CallJob,
  type CallWorkerAnswer,
  type CallWorkerData,
  type CallWorkerJob,
  type CallWorkerPendingHint,
  type CallWorkerSizes,
  type CallWorkerStateStep,
  isCancelled,
  SIZES_REQUEST,
  sharedNow,
  type TaskJob,
} from "./call-worker-messages.js";
import { HeavyTaskRunner } from "./heavy-tasks.js";
import { lowerThisThreadPriority } from "./thread-priority.js";
import { postError } from "./worker-errors.js";

/**
 * States kept warm per state root, for calls (the head, and the block before it while calls still
 * name it) and traces (the pre-states of the blocks whose steps are kept) alike: a test script
 * traces the transactions of its last blocks one after another, each replayed on its parent's state.
 */
const WARM_STATES = STEPS_KEPT;

/** How a worker replays the blocks of a proof-of-stake network when it traces them. */
export interface ReplayConsensus {
  readonly hooks: ReplayHooksProvider;
  /** The active sets the replays know, by state root (a bounded cache, reported in the metrics). */
  readonly activeSets: BoundedStructure;
  /** Takes the active set after a block as the node announced it ({@link StateStep.activeSet}). */
  rememberActiveSetAfter(stateRoot: Uint8Array, set: readonly StepValidator[]): void;
}

/** Makes how the blocks of `network` are replayed when traced (nothing without consensus). */
export type ReplayConsensusOf = (network: NetworkFile) => ReplayConsensus | undefined;

/** What arrives on a worker's port: jobs, news of the chain, and requests from the pool. */
type WorkerMessage =
  | CallWorkerJob
  | CallWorkerStateStep
  | CallWorkerPendingHint
  | "close"
  | typeof SIZES_REQUEST;

/** Serves execution jobs arriving on `port` until told to close. */
export async function serveExecutionJobs(
  port: MessagePort,
  settings: CallWorkerData,
  replayConsensusOf: ReplayConsensusOf,
): Promise<void> {
  // Execution may keep every core busy: the main thread (requests, block production) goes first.
  lowerThisThreadPriority();
  const cancels = new Int32Array(settings.cancels);
  const storage = await openChainStorage(
    settings.network,
    settings.chaindata,
    settings.cacheBounds ? { cacheBounds: settings.cacheBounds } : {},
  );
  const { kv, common, trieDb, states, store, chainView } = storage;
  const warm = new WarmStates(states, WARM_STATES);
  const pending = new PendingBuilds({
    kv,
    common,
    network: settings.network,
    chainView,
    blockByHash: (hash) => store.blockByHash(hash),
  });
  const stateAt = (block: Block): MerkleStateManager => {
    return pending.stateOf(block) ?? warm.at(block.header.stateRoot);
  };
  const executor = new CallExecutor(common, stateAt, chainView, settings.gasCap, settings.maxQueueWaitMs, {
    cacheResults: false,
  });
  const source = {
    common,
    store,
    states,
    blockByHash: (hash: Uint8Array) => store.blockByHash(hash),
    stateAt,
    warmStates: warm,
  };
  const consensus = replayConsensusOf(settings.network);
  const tracing = new TracingService(
    source,
    chainView,
    settings.gasCap,
    settings.maxQueueWaitMs,
    consensus?.hooks,
    settings.traceLimits,
  );
  const tasks = new HeavyTaskRunner({
    source,
    chainView,
    calls: executor,
    tracing,
    simulator: new Simulator({
      common,
      chainView,
      stateAt,
      gasCap: settings.gasCap,
      timeoutMs: settings.evmTimeoutMs,
    }),
    pending,
  });
  await enforceRunLimits();
  let closing = false;
  let running = 0;
  let turn: Promise<unknown> = Promise.resolve();
  const closeWhenIdle = (): void => {
    if (!closing || running > 0) return;
    void storage.close().finally(() => port.close());
  };
  /**
   * Readies the executor, in turn after the jobs before, for the block `blockOf` gives once the
   * store shows the newest commits (the chain announces a block once it is stored). Only a head
   * start: the first job at the block does the same, and reports what fails.
   */
  const headStart = (blockOf: () => Block | undefined | Promise<Block>): void => {
    if (closing) return;
    turn = turn.then(async () => {
      try {
        storage.refresh();
        const block = await blockOf();
        if (block) await executor.prepare(block);
      } catch {
        // Left to the first job at the block.
      }
    });
  };
  // The newest block announced and not yet prepared for (see below).
  let announced: StateStep | undefined;
  const prepareForHead = (): void => {
    const step = announced;
    announced = undefined;
    if (step) headStart(() => store.blockByHash(step.blockHash));
  };
  port.on("message", (job: WorkerMessage) => {
    // The pending block of a new head, announced for the next calls: made, and the executor readied for it.
    if (typeof job === "object" && "prepareCall" in job) {
      headStart(() => pending.callBlock(job.prepareCall));
      return;
    }
    if (typeof job === "object" && "step" in job) {
      warm.record(job.step);
      if (job.step.activeSet) consensus?.rememberActiveSetAfter(job.step.root, job.step.activeSet);
      // While the client that sent the block's transaction reads the answer and asks again, the
      // worker the next job goes to decodes the new head, opens the state after it and readies its
      // call executor for the block: the first call, estimate or trace at the head then finds them
      // ready. Only the newest of a run of blocks is prepared.
      if (!job.prepare) return;
      if (!announced) setImmediate(prepareForHead);
      announced = job.step;
      return;
    }
    if (job === SIZES_REQUEST) {
      const sizes = sizesNow([
        ...store.boundedStructures(),
        ...trieDb.boundedStructures(),
        ...pending.boundedStructures(),
        ...(consensus ? [consensus.activeSets] : []),
      ]);
      port.postMessage({ sizes } satisfies CallWorkerSizes);
      return;
    }
    if (job === "close") {
      closing = true;
      closeWhenIdle();
      return;
    }
    running++;
    turn = turn.then(async () => {
      // The job may name a block committed after this thread's current read snapshot began.
      storage.refresh();
      const reply = await inTurn(job, settings.maxQueueWaitMs, cancels, (limit) =>
        job.kind === "task" ? answerTask(job, tasks, limit) : answer(job, store, pending, executor, limit),
      );
      running--;
      try {
        port.postMessage(reply);
      } catch (error) {
        // A result that cannot be cloned is a bug: answer it as one, and go on with the next job.
        port.postMessage({ id: job.id, kind: "crashed", message: String(error) } satisfies CallWorkerAnswer);
      }
      closeWhenIdle();
    });
  });
  port.postMessage({ ready: true });
}

/**
 * Runs `job` now that its turn has come, unless it waited longer than `maxQueueWaitMs` since it was
 * posted (then it is refused as busy), within the time it has left from when it was posted.
 */
function inTurn(
  job: CallWorkerJob,
  maxQueueWaitMs: number,
  cancels: Int32Array,
  run: (limit: RunLimit) => Promise<CallWorkerAnswer>,
): Promise<CallWorkerAnswer> {
  const waited = sharedNow() - job.postedAt;
  if (waited > maxQueueWaitMs) {
    const message = `execution queue wait exceeded ${maxQueueWaitMs} ms`;
    const retryAfterMs = Math.ceil(waited);
    if (job.kind === "task")
      return Promise.resolve({ id: job.id, kind: "error", error: { type: "busy", message, retryAfterMs } });
    return Promise.resolve({ id: job.id, kind: "busy", message, retryAfterMs });
  }
  return run(runLimit(job.timeoutMs - waited, undefined, () => isCancelled(cancels, job.id)));
}

async function answerTask(job: TaskJob, tasks: HeavyTaskRunner, limit: RunLimit): Promise<CallWorkerAnswer> {
  try {
    return { id: job.id, kind: "value", value: await tasks.run(job.task, limit) };
  } catch (error) {
    // An estimate or access list at a block this thread cannot see (not stored) is run by the caller.
    const callLike = job.task.kind === "estimateGas" || job.task.kind === "createAccessList";
    if (callLike && error instanceof NotFoundError) return { id: job.id, kind: "unavailable" };
    return { id: job.id, kind: "error", error: postError(error) };
  }
}

async function answer(
  job: CallJob,
  store: ChainStore,
  pending: PendingBuilds,
  executor: CallExecutor,
  limit: RunLimit,
): Promise<CallWorkerAnswer> {
  try {
    const block = job.pending ? await pending.callBlock(job.pending) : store.blockByHash(job.blockHash);
    if (!block) return { id: job.id, kind: "unavailable" };
    const outcome = await executor.execute(job.request, block, limit);
    if ("ok" in outcome) return { id: job.id, kind: "ok", data: outcome.ok };
    const { error } = outcome;
    if (error instanceof RevertError)
      return { id: job.id, kind: "reverted", reason: error.reason, data: error.data };
    return { id: job.id, kind: "failed", message: error.message };
  } catch (error) {
    if (error instanceof RunStoppedError) return { id: job.id, kind: "stopped", reason: error.reason };
    // The pending block's parent is not visible here: the caller runs the call itself.
    if (error instanceof NotFoundError) return { id: job.id, kind: "unavailable" };
    if (error instanceof BusyError)
      return { id: job.id, kind: "busy", message: error.message, retryAfterMs: error.retryAfterMs };
    if (error instanceof ExecutionError) return { id: job.id, kind: "refused", message: error.message };
    return { id: job.id, kind: "crashed", message: error instanceof Error ? error.message : String(error) };
  }
}
