import {
  type AnyRpcCall,
  type MethodName,
  type MethodResult,
  RpcError,
  rpcBatch,
  type WireParams,
} from "@strata/protocol";

/** A node could not be reached, or answered something that is not JSON-RPC. */
export class NodeUnreachableError extends Error {
  constructor(url: string, cause: unknown) {
    super(`node ${url} unreachable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "NodeUnreachableError";
  }
}

/** The JSON-RPC error code a node answers for a method it does not serve. */
export const METHOD_NOT_FOUND = -32601;

/** A call by name, outside the table's types. */
export interface UntypedCall {
  readonly method: string;
  readonly params: readonly unknown[];
}

/** The results of a batch of calls, in call order, typed by the wire method table. */
export type BatchResults<C extends readonly AnyRpcCall[]> = {
  -readonly [K in keyof C]: MethodResult<C[K]["method"]>;
};

/**
 * A JSON-RPC client over HTTP whose calls are typed by the wire method table of `@strata/protocol`.
 * A node's error answers become {@link RpcError}s with the node's code; transport failures become
 * {@link NodeUnreachableError}.
 */
export class RpcClient {
  readonly url: string;
  readonly #timeoutMs: number;

  /** `timeoutMs` bounds each HTTP request (default 30 s), so a stalled node cannot hang the indexer. */
  constructor(url: string, timeoutMs = 30_000) {
    this.url = url;
    this.#timeoutMs = timeoutMs;
  }

  /** Calls one method of the wire table and returns its typed result. */
  call<M extends MethodName>(method: M, params: WireParams<M>): Promise<MethodResult<M>>;
  /** Calls any method (one outside the table, or parameters built at run time); the caller names the result type. */
  call<T = unknown>(method: string, params?: readonly unknown[]): Promise<T>;
  async call(method: string, params: readonly unknown[] = []): Promise<unknown> {
    const [result] = await this.batch([{ method, params }]);
    return result;
  }

  /** Calls several methods of the wire table in one HTTP request; results in call order, the first error thrown. */
  batch<const C extends readonly AnyRpcCall[]>(calls: C): Promise<BatchResults<C>>;
  /** Calls any methods in one HTTP request; the caller names the result type. */
  batch<T = unknown>(calls: readonly UntypedCall[]): Promise<T[]>;
  async batch(calls: readonly UntypedCall[]): Promise<unknown[]> {
    const settled = await rpcBatch(
      (body) => this.#post(body),
      calls as readonly AnyRpcCall[],
      (reason) => new NodeUnreachableError(this.url, new Error(reason)),
    );
    for (const answer of settled) if (answer instanceof Error) throw answer;
    return settled;
  }

  async #post(body: string): Promise<string> {
    try {
      const response = await fetch(this.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      return await response.text();
    } catch (error) {
      throw new NodeUnreachableError(this.url, error);
    }
  }
}

/** Whether `error` is a node's "method not found" answer (the node does not serve that method). */
export function isMethodNotFound(error: unknown): boolean {
  return error instanceof RpcError && error.code === METHOD_NOT_FOUND;
}
