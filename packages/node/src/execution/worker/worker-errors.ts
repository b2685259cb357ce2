import { RpcError } from "@strata/protocol";
import {
  BusyError,
  DevOnlyError,
  ExecutionError,
  NotFoundError,
  OutputLimitError,
  RevertError,
  RunStoppedError,
  runStopped,
  type StopReason,
  ValidationError,
  type ValidationErrorKind,
} from "../../errors/domain-errors.js";

/**
 * An error as a worker thread posts it: the domain errors a task can end with keep their class
 * and fields across the thread boundary (structured cloning keeps neither); anything else is a
 * bug, posted as `unexpected` with its message.
 */
export type PostedError =
  | { readonly type: "revert"; readonly reason: string | undefined; readonly data: Uint8Array }
  | { readonly type: "execution"; readonly message: string }
  | { readonly type: "notFound"; readonly message: string }
  | { readonly type: "devOnly"; readonly message: string }
  | { readonly type: "validation"; readonly kind: ValidationErrorKind; readonly message: string }
  | { readonly type: "busy"; readonly message: string; readonly retryAfterMs: number }
  | { readonly type: "output"; readonly message: string; readonly limit: string; readonly max: number }
  | { readonly type: "stopped"; readonly reason: StopReason }
  | { readonly type: "rpc"; readonly code: number; readonly message: string; readonly data: unknown }
  | { readonly type: "unexpected"; readonly message: string };

/** `error` in a form that survives `postMessage`. */
export function postError(error: unknown): PostedError {
  if (error instanceof RevertError) return { type: "revert", reason: error.reason, data: error.data };
  if (error instanceof RunStoppedError) return { type: "stopped", reason: error.reason };
  if (error instanceof ExecutionError) return { type: "execution", message: error.message };
  if (error instanceof NotFoundError) return { type: "notFound", message: error.message };
  if (error instanceof DevOnlyError) return { type: "devOnly", message: error.message };
  if (error instanceof ValidationError)
    return { type: "validation", kind: error.kind, message: error.message };
  if (error instanceof BusyError)
    return { type: "busy", message: error.message, retryAfterMs: error.retryAfterMs };
  if (error instanceof OutputLimitError)
    return { type: "output", message: error.message, limit: error.limit, max: error.max };
  if (error instanceof RpcError)
    return { type: "rpc", code: error.code, message: error.message, data: error.data };
  return { type: "unexpected", message: error instanceof Error ? error.message : String(error) };
}

/** The error a worker posted, as the class it was thrown as. */
export function receivedError(posted: PostedError): Error {
  switch (posted.type) {
    case "revert":
      return new RevertError(posted.reason, posted.data);
    case "execution":
      return new ExecutionError(posted.message);
    case "notFound":
      return new NotFoundError(posted.message);
    case "devOnly":
      return new DevOnlyError(posted.message);
    case "validation":
      return new ValidationError(posted.kind, posted.message);
    case "busy":
      return new BusyError(posted.message, posted.retryAfterMs);
    case "output":
      return new OutputLimitError(posted.message, posted.limit, posted.max);
    case "stopped":
      return runStopped(posted.reason);
    case "rpc":
      return new RpcError(posted.code, posted.message, { data: posted.data });
    case "unexpected":
      return new Error(posted.message);
  }
}
