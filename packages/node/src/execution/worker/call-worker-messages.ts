import type { CallRequest } from "@strata/protocol";
import type { NetworkFile } from "../../config/network.js";
import type { StopReason } from "../../errors/domain-errors.js";
import type { StructureSize } from "../../metrics/bounded-structure.js";
import type { PendingContext } from "../../producer/pending-execution.js";
import type { StorageCacheBounds } from "../state/chain-storage.js";
import type { StateStep, WarmStates } from "../state/state-carry.js";
import type { TraceLimits } from "../tracing/trace-options.js";
import type { HeavyTask } from "./heavy-tasks.js";
import type { PostedError } from "./worker-errors.js";

/** What an execution worker is started with. */
export interface CallWorkerSettings {
  /** The LMDB environment of the node's chain store. */
  readonly chaindata: string;
  readonly network: NetworkFile;
  readonly gasCap: bigint;
  readonly maxQueueWaitMs: number;
  /** The time budget of an estimate, a simulation or a block build. */
  readonly evmTimeoutMs: number;
  readonly traceLimits: TraceLimits;
  /** The bounds of the caches of the worker's store, when not the node's (tests fill them past small ones). */
  readonly cacheBounds?: StorageCacheBounds;
}

/** What a worker thread is started with: the settings, and the flags that call its jobs off. */
export interface CallWorkerData extends CallWorkerSettings {
  /** Int32 slots, one per job id modulo {@link CANCEL_SLOTS}: a slot holding a job's id calls it off. */
  readonly cancels: SharedArrayBuffer;
}

/** How many jobs a worker can have called off at once. */
const CANCEL_SLOTS = 4096;

/** The cancel flags of a new worker, all clear. */
export function cancelFlags(): SharedArrayBuffer {
  return new SharedArrayBuffer(CANCEL_SLOTS * Int32Array.BYTES_PER_ELEMENT);
}

/** Whether the flags of `cancels` call job `id` off. */
export function isCancelled(cancels: Int32Array, id: number): boolean {
  return Atomics.load(cancels, id % CANCEL_SLOTS) === (id | 0);
}

/** Calls job `id` off: the worker sees it between two interpreter steps, without its event loop. */
export function cancel(cancels: Int32Array, id: number): void {
  Atomics.store(cancels, id % CANCEL_SLOTS, id | 0);
}

/** The clock both threads share: milliseconds since the epoch, with sub-millisecond precision. */
export function sharedNow(): number {
  return performance.timeOrigin + performance.now();
}

/** What every job carries: its id, its time and when it was posted. */
interface JobBase {
  readonly id: number;
  /** Milliseconds the job may still take (it may have waited already). */
  readonly timeoutMs: number;
  /** {@link sharedNow} when it was posted: a job that waited beyond the queue limit is refused. */
  readonly postedAt: number;
}

/** One call for a worker: the request and the block it runs on (a stored one by hash, or the pending one). */
export interface CallJob extends JobBase {
  readonly kind?: "call";
  readonly request: CallRequest;
  readonly blockHash: Uint8Array;
  /** Set when the block is the pending block: the worker makes it from this. */
  readonly pending?: PendingContext;
}

/** Any other heavy execution for a worker (estimate, trace, simulation, block build). */
export interface TaskJob extends JobBase {
  readonly kind: "task";
  readonly task: HeavyTask;
}

/** One job for a worker. */
export type CallWorkerJob = CallJob | TaskJob;

/**
 * A worker's answer to a job: the return data; a revert or failure (deterministic, like the
 * in-thread outcomes); a refusal before execution (busy, or a message the VM gave); a run stopped
 * by its time limit or called off; `unavailable` when the worker cannot see the block (the caller
 * runs the call itself); `crashed` on a bug.
 */
export type CallWorkerAnswer =
  | { readonly id: number; readonly kind: "ok"; readonly data: Uint8Array }
  | {
      readonly id: number;
      readonly kind: "reverted";
      readonly reason: string | undefined;
      readonly data: Uint8Array;
    }
  | { readonly id: number; readonly kind: "failed"; readonly message: string }
  | { readonly id: number; readonly kind: "busy"; readonly message: string; readonly retryAfterMs: number }
  | { readonly id: number; readonly kind: "refused"; readonly message: string }
  | { readonly id: number; readonly kind: "stopped"; readonly reason: StopReason }
  | { readonly id: number; readonly kind: "unavailable" }
  | { readonly id: number; readonly kind: "crashed"; readonly message: string }
  | { readonly id: number; readonly kind: "value"; readonly value: unknown }
  | { readonly id: number; readonly kind: "error"; readonly error: PostedError };

/**
 * What a committed block changed, told to every worker as the block is committed (before any job can
 * name it): the worker opens the state after it from its parent's caches ({@link WarmStates}).
 */
export interface CallWorkerStateStep {
  readonly step: StateStep;
  /**
   * Open that state at once, ahead of the first job at the block: told only to the worker the next
   * job goes to, so the others spend nothing on a block they may never be asked about.
   */
  readonly prepare: boolean;
}

/**
 * The header-only pending block of a new head (the pool holds nothing executable), told to the worker
 * the next job goes to: it makes that block and readies its call executor for it, ahead of the
 * first call or estimate at `pending` (a dApp estimates its next transaction right after a block).
 */
export interface CallWorkerPendingHint {
  readonly prepareCall: PendingContext;
}

/** A worker's first message, once it can take jobs. */
export interface CallWorkerReady {
  readonly ready: true;
}

/**
 * Asks a worker for its caches' sizes; it answers with {@link CallWorkerSizes} between two jobs, apart
 * from the job queue.
 */
export const SIZES_REQUEST = "sizes";

/** A worker's caches (decoded blocks, receipts, trie nodes) with their sizes and bounds. */
export interface CallWorkerSizes {
  readonly sizes: readonly StructureSize[];
}
