/** Base class of the node's domain errors; `rpc/errors.ts` maps each subclass to a JSON-RPC code. */
export class DomainError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A transaction that can never be valid here (bad encoding, signature, chain id, type, size, fee cap). */
export class InvalidTransactionError extends DomainError {}

/** A transaction refused for the current state (nonce, balance, pool rules), with geth's wording. */
export class TxPoolError extends DomainError {}

/** A call or estimate that reverted; `data` is the revert payload. */
export class RevertError extends DomainError {
  constructor(
    readonly reason: string | undefined,
    readonly data: Uint8Array,
  ) {
    super(reason ? `execution reverted: ${reason}` : "execution reverted");
  }
}

/** A call or estimate that failed for a reason other than a revert (out of gas, invalid opcode...). */
export class ExecutionError extends DomainError {}

/** A block, transaction or state that the request names but the node does not have. */
export class NotFoundError extends DomainError {}

/** A method that only exists on development networks, called elsewhere. */
export class DevOnlyError extends DomainError {}

/** The node is too busy to start the work in time; the client should retry later. */
export class BusyError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
  }
}

/** An answer that would exceed one of the node's output limits (struct-logger steps or bytes): -32005. */
export class OutputLimitError extends DomainError {
  constructor(
    message: string,
    /** The limit's name, as configured (e.g. `traceMaxSteps`). */
    readonly limit: string,
    readonly max: number,
  ) {
    super(message);
  }
}

/** A filter id that was never installed, was uninstalled, or expired (geth's "filter not found"). */
export class FilterNotFoundError extends NotFoundError {
  constructor() {
    super("filter not found");
  }
}

/** Installing one more filter would exceed the node's limit of `max` filters. */
export class TooManyFiltersError extends DomainError {
  /** `scope` says which cap was hit: all filters of the node, or those of one caller. */
  constructor(
    readonly max: number,
    readonly scope: "node" | "caller" = "node",
  ) {
    super(scope === "node" ? "too many filters" : "too many filters for this caller");
  }
}

/** The reasons geth gives distinct error codes to when it refuses a simulated transaction or block. */
export type ValidationErrorKind =
  | "nonceTooLow"
  | "nonceTooHigh"
  | "nonceMax"
  | "baseFeeTooLow"
  | "intrinsicGas"
  | "insufficientFunds"
  | "blockGasLimitReached"
  | "blockNumberInvalid"
  | "blockTimestampInvalid"
  | "senderNotEoa"
  | "maxInitCodeSizeExceeded"
  | "clientLimitExceeded"
  | "invalidParams";

/** A request refused by a validation rule that geth reports with its own error code (`eth_simulateV1` and friends). */
export class ValidationError extends DomainError {
  constructor(
    readonly kind: ValidationErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** A `svc_` resource the request names that does not exist (unknown asset, node id): -32001. */
export class UnknownResourceError extends DomainError {}

/** A resource that cannot be served yet or here (not enough price history, contract absent): -32002. */
export class UnavailableResourceError extends DomainError {}

/** Why a run stopped before its code ended: its time ran out, or its client went away. */
export type StopReason = "timeout" | "cancelled";

/** A run stopped by its limit rather than ended by its code: never the outcome of its request. */
export abstract class RunStoppedError extends ExecutionError {
  abstract readonly reason: StopReason;
}

/** A call, estimate or trace that ran past its time budget (geth's "execution timeout"). */
export class ExecutionTimeoutError extends RunStoppedError {
  readonly reason = "timeout";
  constructor() {
    super("execution timeout");
  }
}

/** A call or estimate stopped because the client that asked for it disconnected. */
export class RequestCancelledError extends RunStoppedError {
  readonly reason = "cancelled";
  constructor() {
    super("request cancelled: the client disconnected");
  }
}

/** The error of a run stopped for `reason`. */
export function runStopped(reason: StopReason): RunStoppedError {
  return reason === "timeout" ? new ExecutionTimeoutError() : new RequestCancelledError();
}
