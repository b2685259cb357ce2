import { RpcError } from "@strata/protocol";

/** One call of a batch. */
export interface RpcCall {
  readonly method: string;
  readonly params: readonly unknown[];
}

/** A node could not be reached, or answered something that is not JSON-RPC. */
export class NodeUnreachableError extends Error {
  constructor(url: string, cause: unknown) {
    super(`node ${url} unreachable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "NodeUnreachableError";
  }
}

/** The JSON-RPC error code a node answers for a method it does not serve. */
export const METHOD_NOT_FOUND = -32601;

interface Envelope {
  id?: number;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/**
 * A JSON-RPC client over HTTP. A node's error answers become {@link RpcError}s with the node's code;
 * transport failures become {@link NodeUnreachableError}.
 */
export class RpcClient {
  readonly url: string;
  readonly #timeoutMs: number;

  /** `timeoutMs` bounds each HTTP request (default 30 s), so a stalled node cannot hang the indexer. */
  constructor(url: string, timeoutMs = 30_000) {
    this.url = url;
    this.#timeoutMs = timeoutMs;
  }

  /** Calls one method and returns its result. */
  async call<T>(method: string, params: readonly unknown[] = []): Promise<T> {
    const [result] = await this.batch<T>([{ method, params }]);
    return result as T;
  }

  /** Calls several methods in one HTTP request; results in call order, the first error thrown. */
  async batch<T = unknown>(calls: readonly RpcCall[]): Promise<T[]> {
    if (calls.length === 0) return [];
    const body = JSON.stringify(
      calls.map((c, id) => ({ jsonrpc: "2.0", id, method: c.method, params: c.params })),
    );
    let answers: unknown;
    try {
      const response = await fetch(this.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      answers = await response.json();
    } catch (error) {
      throw new NodeUnreachableError(this.url, error);
    }
    if (!Array.isArray(answers)) {
      const single = answers as Envelope | undefined;
      if (single?.error)
        throw new RpcError(single.error.code, single.error.message, { data: single.error.data });
      throw new NodeUnreachableError(this.url, new Error("answer to a batch is not an array"));
    }
    const byId = new Map<number, Envelope>();
    for (const answer of answers as Envelope[])
      if (typeof answer?.id === "number") byId.set(answer.id, answer);
    return calls.map((call, id) => {
      const answer = byId.get(id);
      if (answer === undefined)
        throw new NodeUnreachableError(this.url, new Error(`no answer to ${call.method}`));
      if (answer.error)
        throw new RpcError(answer.error.code, answer.error.message, { data: answer.error.data });
      return answer.result as T;
    });
  }
}

/** Whether `error` is a node's "method not found" answer (the node does not serve that method). */
export function isMethodNotFound(error: unknown): boolean {
  return error instanceof RpcError && error.code === METHOD_NOT_FOUND;
}
