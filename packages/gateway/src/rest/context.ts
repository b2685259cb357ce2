import type { Database } from "@strata/db";
import { RpcError } from "@strata/protocol";
import { BadRequestError, NotFoundError, UnavailableError } from "./rest-errors.js";

/** Calls a node method through the gateway's upstreams; rejects with the node's {@link RpcError}. */
export type RestRpc = (method: string, params: readonly unknown[]) => Promise<unknown>;

/** What a route reads from. */
export interface RestContext {
  readonly db: Database | undefined;
  readonly rpc: RestRpc | undefined;
}

/** The index, or 503 when the gateway runs without one. */
export function requireDb(ctx: RestContext): Database {
  if (ctx.db === undefined) {
    throw new UnavailableError(
      "no index database: start the gateway with --database-url and run strata indexer",
    );
  }
  return ctx.db;
}

/**
 * Calls the node; its JSON-RPC errors become REST errors: -32001 -> 404, -32602 -> 400, a method the
 * node does not serve or a dependency down -> 503.
 */
export async function callNode<T>(
  ctx: RestContext,
  method: string,
  params: readonly unknown[] = [],
): Promise<T> {
  if (ctx.rpc === undefined) throw new UnavailableError("no node configured for live reads");
  try {
    return (await ctx.rpc(method, params)) as T;
  } catch (error) {
    if (error instanceof RpcError) {
      if (error.code === -32001) throw new NotFoundError(error.message);
      if (error.code === -32602) throw new BadRequestError(error.message);
      if (error.code === -32601) throw new UnavailableError(`the node does not serve ${method}`);
      throw new UnavailableError(`${method}: ${error.message}`);
    }
    // Transport errors name the node's address: the client only learns that it is unreachable.
    throw new UnavailableError("node unreachable");
  }
}

/** Like {@link callNode}, but `undefined` instead of an error when the node cannot answer. */
export async function tryNode<T>(
  ctx: RestContext,
  method: string,
  params: readonly unknown[] = [],
): Promise<T | undefined> {
  try {
    return await callNode<T>(ctx, method, params);
  } catch {
    return undefined;
  }
}
