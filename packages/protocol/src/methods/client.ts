import { RpcError } from "../errors.js";
import type { MethodName, MethodResult, WireParams } from "./table.js";

/** Sends one JSON-RPC body (a batch) and answers the response body: HTTP, a WebSocket, a gateway's pool. */
export type RpcTransport = (body: string) => Promise<string>;

/** One call of a method of the table with its wire parameters. */
export interface RpcCall<M extends MethodName = MethodName> {
  readonly method: M;
  readonly params: WireParams<M>;
}

/** Any call of the table, with the method and its parameters kept together. */
export type AnyRpcCall = { [M in MethodName]: RpcCall<M> }[MethodName];

/** The error a caller makes of an answer that is not a JSON-RPC answer to its calls. */
export type InvalidAnswer = (reason: string) => Error;

/** Each call's result, or the error its node answered (an {@link RpcError}) or the caller made of a bad answer. */
export type Settled<C extends readonly AnyRpcCall[]> = {
  -readonly [K in keyof C]: MethodResult<C[K]["method"]> | Error;
};

interface Answer {
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: { code: number; message: string; data?: unknown };
}

/** Builds a typed call: `rpcRequest("eth_getBalance", address, "latest")`. */
export function rpcRequest<M extends MethodName>(method: M, ...params: WireParams<M>): RpcCall<M> {
  return { method, params };
}

/**
 * Makes `calls` as one JSON-RPC batch (ids 0..n-1) and settles each: its result typed by the method
 * table, or the node's error as an {@link RpcError}. An answer that is not JSON, not a batch, or
 * lacks an entry settles the calls it leaves unanswered with `invalid(reason)`; a single error
 * object (the node refused the body whole) settles every call with that error.
 */
export async function rpcBatch<const C extends readonly AnyRpcCall[]>(
  transport: RpcTransport,
  calls: C,
  invalid: InvalidAnswer,
): Promise<Settled<C>> {
  if (calls.length === 0) return [] as Settled<C>;
  const body = JSON.stringify(
    calls.map((c, id) => ({ jsonrpc: "2.0", id, method: c.method, params: c.params })),
  );
  return settle(await transport(body), calls, invalid) as Settled<C>;
}

/** Calls one method; returns its typed result or throws the node's {@link RpcError} (or `invalid`'s error). */
export async function rpcCall<M extends MethodName>(
  transport: RpcTransport,
  method: M,
  params: WireParams<M>,
  invalid: InvalidAnswer,
): Promise<MethodResult<M>> {
  const [result] = await rpcBatch(transport, [{ method, params } as AnyRpcCall], invalid);
  if (result instanceof Error) throw result;
  return result as MethodResult<M>;
}

function settle(text: string, calls: readonly AnyRpcCall[], invalid: InvalidAnswer): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return calls.map(() => invalid("answer is not JSON"));
  }
  if (!Array.isArray(parsed)) {
    const single = parsed as Answer | null;
    if (typeof single === "object" && single?.error !== undefined) {
      return calls.map(() => nodeError(single.error!));
    }
    return calls.map(() => invalid("answer to a batch is not an array"));
  }
  const byId = new Map<number, Answer>();
  for (const answer of parsed as Answer[]) {
    if (typeof answer?.id === "number" && answer.id >= 0 && answer.id < calls.length)
      byId.set(answer.id, answer);
  }
  return calls.map((call, id) => {
    const answer = byId.get(id);
    if (answer === undefined) return invalid(`no answer to ${call.method}`);
    return answer.error !== undefined ? nodeError(answer.error) : answer.result;
  });
}

function nodeError(error: { code: number; message: string; data?: unknown }): RpcError {
  return new RpcError(error.code, error.message, error.data === undefined ? {} : { data: error.data });
}
