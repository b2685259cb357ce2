import type { CallRequest } from "@strata/protocol";
import type { NetworkFile } from "../config/network.js";

/** What an `eth_call` worker is started with. */
export interface CallWorkerSettings {
  /** The LMDB environment of the node's chain store. */
  readonly chaindata: string;
  readonly network: NetworkFile;
  readonly gasCap: bigint;
  readonly maxQueueWaitMs: number;
}

/** One call for a worker: the request and the hash of the (stored) block it runs on. */
export interface CallWorkerJob {
  readonly id: number;
  readonly request: CallRequest;
  readonly blockHash: Uint8Array;
}

/**
 * A worker's answer to a job: the return data; a revert or failure (deterministic, like the
 * in-thread outcomes); a refusal before execution (busy, or a message the VM gave); `unavailable`
 * when the worker cannot see the block (the caller runs the call itself); `crashed` on a bug.
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
  | { readonly id: number; readonly kind: "unavailable" }
  | { readonly id: number; readonly kind: "crashed"; readonly message: string };

/** A worker's first message, once it can take jobs. */
export interface CallWorkerReady {
  readonly ready: true;
}
