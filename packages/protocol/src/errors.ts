/** JSON-RPC error codes used by Strata (EIP-1474 plus geth's `3` for reverts). */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  Internal: -32603,
  Server: -32000,
  ResourceNotFound: -32001,
  ResourceUnavailable: -32002,
  TransactionRejected: -32003,
  MethodNotSupported: -32004,
  LimitExceeded: -32005,
  ExecutionReverted: 3,
} as const;

/** A JSON-RPC error code. */
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Base class of every error that travels to a client as a JSON-RPC error object. */
export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  /** HTTP status that accompanies this error when it refuses a whole HTTP request. */
  readonly httpStatus: number;

  constructor(
    code: number,
    message: string,
    options: { data?: unknown; httpStatus?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.data = options.data;
    this.httpStatus = options.httpStatus ?? 200;
  }

  /** The wire form `{code, message, data?}`. */
  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** -32700: the body is not valid JSON. */
export class ParseError extends RpcError {
  constructor(message = "Parse error") {
    super(ErrorCode.ParseError, message);
  }
}

/** -32600: the envelope is malformed, the batch is empty or too large, or the body is too large. */
export class InvalidRequestError extends RpcError {
  constructor(message = "Invalid Request", httpStatus = 200) {
    super(ErrorCode.InvalidRequest, message, { httpStatus });
  }
}

/** -32601: no such method (or the method is disabled on this node). */
export class MethodNotFoundError extends RpcError {
  constructor(method: string) {
    super(ErrorCode.MethodNotFound, `the method ${method} does not exist/is not available`);
  }
}

/** -32602: wrong parameter count, type or format. */
export class InvalidParamsError extends RpcError {
  constructor(message: string) {
    super(ErrorCode.InvalidParams, message);
  }
}

/** -32603: a bug; the message never carries a stack trace. */
export class InternalError extends RpcError {
  constructor(message = "Internal error", cause?: unknown) {
    super(ErrorCode.Internal, message, { cause });
  }
}

/** -32000: a geth-style execution or validation failure (`nonce too low`, ...). */
export class ServerError extends RpcError {
  constructor(message: string, data?: unknown) {
    super(ErrorCode.Server, message, data === undefined ? {} : { data });
  }
}

/** 3: `eth_call`/`eth_estimateGas` reverted; `data` holds the revert bytes. */
export class ExecutionRevertedError extends RpcError {
  constructor(reason: string | undefined, data: string) {
    super(ErrorCode.ExecutionReverted, reason ? `execution reverted: ${reason}` : "execution reverted", {
      data,
    });
  }
}

/** -32001: a `svc_`/`api_` resource does not exist. */
export class ResourceNotFoundError extends RpcError {
  constructor(message: string) {
    super(ErrorCode.ResourceNotFound, message);
  }
}

/** -32002: a dependency is unavailable right now. */
export class ResourceUnavailableError extends RpcError {
  constructor(message: string) {
    super(ErrorCode.ResourceUnavailable, message);
  }
}

/** -32003: a transaction that can never be valid. */
export class TransactionRejectedError extends RpcError {
  constructor(message: string) {
    super(ErrorCode.TransactionRejected, message);
  }
}

/** -32004: a known standard method this node deliberately does not serve. */
export class MethodNotSupportedError extends RpcError {
  constructor(method: string) {
    super(ErrorCode.MethodNotSupported, `the method ${method} is not supported by this node`);
  }
}

/** -32005: a limit was exceeded; `data` says which one and what to retry with. */
export class LimitExceededError extends RpcError {
  constructor(message: string, data?: unknown, httpStatus = 200) {
    super(ErrorCode.LimitExceeded, message, data === undefined ? { httpStatus } : { data, httpStatus });
  }
}
