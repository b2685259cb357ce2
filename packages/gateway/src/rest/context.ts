import type { Database } from "@strata/db";
import { type MethodResult, type NodeMethodName, RpcError, type WireParams } from "@strata/protocol";
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
 * Calls a method of the wire table on the node, its answer typed by the table; its JSON-RPC errors
 * become REST errors: -32001 -> 404, -32602 -> 400, a method the node does not serve or a dependency
 * down -> 503.
 */
export async function callNode<M extends NodeMethodName>(
  ctx: RestContext,
  method: M,
  params: WireParams<M>,
): Promise<MethodResult<M>> {
  if (ctx.rpc === undefined) throw new UnavailableError("no node configured for live reads");
  try {
    // The node answers as the wire table says (its own tests parse live answers with the table).
    return (await ctx.rpc(method, params)) as MethodResult<M>;
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
export async function tryNode<M extends NodeMethodName>(
  ctx: RestContext,
  method: M,
  params: WireParams<M>,
): Promise<MethodResult<M> | undefined> {
  try {
    return await callNode(ctx, method, params);
  } catch {
    return undefined;
  }
}
