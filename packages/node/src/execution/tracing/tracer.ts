import type { StateManagerInterface } from "@ethereumjs/common";
import type { Address } from "@ethereumjs/util";

/** The kind of a call frame, named after the opcode that opened it (geth's `type`). */
export type FrameType =
  | "CALL"
  | "CALLCODE"
  | "DELEGATECALL"
  | "STATICCALL"
  | "CREATE"
  | "CREATE2"
  | "SELFDESTRUCT";

/** What a tracer learns when a transaction starts, before any of its state changes. */
export interface TxStart {
  readonly from: Address;
  /** The callee, or for a contract creation the address the contract will get. */
  readonly to: Address;
  readonly isCreate: boolean;
  readonly gasLimit: bigint;
  readonly value: bigint;
  readonly coinbase: Address;
  /** The signers of an EIP-7702 transaction's authorizations (those that recover). */
  readonly authorities: readonly Address[];
  /** The state as the transaction sees it; reads reflect the execution so far. */
  readonly state: StateManagerInterface;
}

/** A call frame being entered (geth's OnEnter); depth 0 is the transaction itself. */
export interface FrameEnter {
  readonly depth: number;
  readonly type: FrameType;
  readonly from: Address;
  /** Undefined for a creation whose address is only known when it ends. */
  readonly to: Address | undefined;
  readonly input: Uint8Array;
  readonly gas: bigint;
  /** Undefined for STATICCALL (geth reports no value there). */
  readonly value: bigint | undefined;
}

/** A call frame ending (geth's OnExit). */
export interface FrameExit {
  readonly depth: number;
  readonly output: Uint8Array;
  readonly gasUsed: bigint;
  /** geth's error text, e.g. `execution reverted`, `out of gas`. */
  readonly error: string | undefined;
  readonly createdAddress: Address | undefined;
}

/** One opcode about to run (geth's OnOpcode). `depth` starts at 1 for the transaction, as in geth. */
export interface OpcodeStep {
  readonly pc: number;
  readonly op: string;
  readonly opcode: number;
  readonly gas: bigint;
  readonly cost: bigint;
  readonly depth: number;
  /** Stack, bottom first. */
  readonly stack: readonly bigint[];
  readonly memory: Uint8Array;
  readonly address: Address;
  readonly refund: bigint;
  /** The return data of the last call made by this frame. */
  readonly returnData: Uint8Array;
  readonly state: StateManagerInterface;
}

/** A log emitted by the frame on top of the call stack. */
export interface EmittedLog {
  readonly address: Address;
  readonly topics: readonly Uint8Array[];
  readonly data: Uint8Array;
  /** The log's index within its block. */
  readonly index: number;
}

/** What a tracer learns when the transaction has ended and its state changes are applied. */
export interface TxEnd {
  readonly gasUsed: bigint;
  readonly state: StateManagerInterface;
}

/**
 * A transaction tracer: hooks called while one transaction executes, then a JSON result. Hooks may
 * be async (they are awaited before execution continues). Mirrors geth's `tracing.Hooks`.
 */
export interface Tracer {
  /** Whether the tracer needs per-opcode hooks (they slow execution down). */
  readonly wantsOpcodes: boolean;
  onTxStart?(start: TxStart): Promise<void> | void;
  onEnter?(frame: FrameEnter): void;
  onExit?(frame: FrameExit): void;
  onOpcode?(step: OpcodeStep): Promise<void> | void;
  onLog?(log: EmittedLog): void;
  onTxEnd?(end: TxEnd): Promise<void> | void;
  /** The trace as geth would return it. */
  result(): unknown;
}
