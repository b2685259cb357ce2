import {
  ExecutionRevertedError,
  InternalError,
  LimitExceededError,
  MethodNotFoundError,
  ResourceNotFoundError,
  ResourceUnavailableError,
  RpcError,
  ServerError,
  TransactionRejectedError,
  toData,
} from "@strata/protocol";
import {
  BusyError,
  DevOnlyError,
  ExecutionError,
  InvalidTransactionError,
  NotFoundError,
  OutputLimitError,
  RevertError,
  TooManyFiltersError,
  TxPoolError,
  UnavailableResourceError,
  UnknownResourceError,
  ValidationError,
  type ValidationErrorKind,
} from "../errors/domain-errors.js";

/** geth's codes for validation failures (`internal/ethapi/errors.go`). */
const VALIDATION_ERROR_CODES: Record<ValidationErrorKind, number> = {
  nonceTooLow: -38010,
  nonceTooHigh: -38011,
  nonceMax: -32603,
  baseFeeTooLow: -38012,
  intrinsicGas: -38013,
  insufficientFunds: -38014,
  blockGasLimitReached: -38015,
  blockNumberInvalid: -38020,
  blockTimestampInvalid: -38021,
  senderNotEoa: -38024,
  maxInitCodeSizeExceeded: -38025,
  clientLimitExceeded: -38026,
  invalidParams: -32602,
};

/**
 * The one place where domain errors become JSON-RPC errors (DECISIONS.md error table). Anything
 * unexpected becomes -32603 without details; `onUnexpected` receives it for logging.
 */
export function toRpcError(error: unknown, onUnexpected: (error: unknown) => void): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof RevertError) return new ExecutionRevertedError(error.reason, toData(error.data));
  if (error instanceof InvalidTransactionError) return new TransactionRejectedError(error.message);
  if (error instanceof TxPoolError || error instanceof ExecutionError || error instanceof NotFoundError) {
    return new ServerError(error.message);
  }
  if (error instanceof ValidationError)
    return new RpcError(VALIDATION_ERROR_CODES[error.kind], error.message);
  if (error instanceof UnknownResourceError) return new ResourceNotFoundError(error.message);
  if (error instanceof UnavailableResourceError) return new ResourceUnavailableError(error.message);
  if (error instanceof TooManyFiltersError) {
    return new LimitExceededError(error.message, {
      limit: error.scope === "node" ? "filters" : "filtersPerCaller",
      max: error.max,
    });
  }
  if (error instanceof OutputLimitError) {
    return new LimitExceededError(error.message, { limit: error.limit, max: error.max });
  }
  if (error instanceof DevOnlyError) return new MethodNotFoundError(error.message);
  if (error instanceof BusyError) {
    return new LimitExceededError(error.message, {
      limit: "executionQueue",
      retryAfterMs: error.retryAfterMs,
    });
  }
  onUnexpected(error);
  return new InternalError();
}
