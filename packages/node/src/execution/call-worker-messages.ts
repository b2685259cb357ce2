import type { CallRequest } from "@strata/protocol";
import type { NetworkFile } from "../config/network.js";
import type { StopReason } from "../errors/domain-errors.js";

/** What an `eth_call` worker is started with. */
export interface CallWorkerSettings {
  /** The LMDB environment of the node's chain store. */
  readonly chaindata: string;
  readonly network: NetworkFile;
  readonly gasCap: bigint;
  readonly maxQueueWaitMs: number;
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

/** One call for a worker: the request, the hash of the (stored) block it runs on and the time it has left. */
export interface CallWorkerJob {
  readonly id: number;
  readonly request: CallRequest;
  readonly blockHash: Uint8Array;
  /** Milliseconds the call may still take (it may have waited already). */
  readonly timeoutMs: number;
}

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
  | { readonly id: number; readonly kind: "crashed"; readonly message: string };

/** A worker's first message, once it can take jobs. */
export interface CallWorkerReady {
  readonly ready: true;
}
