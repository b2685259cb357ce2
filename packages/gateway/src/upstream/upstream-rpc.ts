import { type AnyRpcCall, RpcError, rpcBatch, type Settled } from "@strata/protocol";
import { UpstreamUnavailableError } from "../errors.js";
import type { UpstreamPool } from "./upstream-pool.js";

/** A JSON-RPC error answered by an upstream node, passed on to the client unchanged. */
export class UpstreamRpcError extends RpcError {
  constructor(error: { code: number; message: string; data?: unknown }) {
    super(error.code, error.message, error.data === undefined ? {} : { data: error.data });
  }
}

/** One JSON-RPC answer object as a node sends it. */
export interface AnswerObject {
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: { code: number; message: string; data?: unknown };
}

/**
 * Makes `calls` as one batch on the best upstream (with failover) and settles each: its result typed
 * by the wire method table, or the {@link RpcError} the node answered for it. An answer that is not a
 * JSON-RPC answer settles as {@link UpstreamUnavailableError}.
 */
export function callUpstream<const C extends readonly AnyRpcCall[]>(
  pool: UpstreamPool,
  calls: C,
): Promise<Settled<C>> {
  return rpcBatch(
    async (body) => (await pool.send(body)).body,
    calls,
    () => new UpstreamUnavailableError("upstream node sent an invalid answer"),
  );
}

/**
 * Pairs a node's batch answer with the `count` calls sent under ids 0..count-1. An answer that is not
 * a batch (the node refused the body whole) becomes every call's error.
 */
export function matchAnswers(text: string, count: number): AnswerObject[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const fallback: AnswerObject =
    typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) && "error" in parsed
      ? (parsed as AnswerObject)
      : { error: new UpstreamUnavailableError("upstream node sent an invalid answer").toJSON() };
  const answers: AnswerObject[] = new Array(count).fill(fallback);
  if (Array.isArray(parsed)) {
    for (const item of parsed as AnswerObject[]) {
      if (typeof item?.id === "number" && item.id >= 0 && item.id < count) answers[item.id] = item;
    }
  }
  return answers;
}

/** A settled result, or throws its error. */
export function unwrap<T>(value: T | Error): T {
  if (value instanceof Error) throw value;
  return value;
}
