import {
  ExecutionRevertedError,
  InternalError,
  LimitExceededError,
  MethodNotFoundError,
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
  RevertError,
  TooManyFiltersError,
  TxPoolError,
} from "../errors/domain-errors.js";

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
  if (error instanceof TooManyFiltersError) {
    return new LimitExceededError(error.message, { limit: "filters", max: error.max });
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
