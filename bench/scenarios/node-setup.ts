import type { Hex } from "viem";
import { RpcClient } from "../rpc.js";
import type { ScenarioContext } from "./types.js";

/**
 * What `prepare` builds on the scenario's node, built once per node however many scenarios or
 * rounds ask for it (`name` tells preparations apart). Concurrent askers share the one preparation.
 */
export function oncePerNode<T>(
  ctx: ScenarioContext,
  name: string,
  prepare: (rpc: RpcClient) => Promise<T>,
): Promise<T> {
  const key = `${name}:${ctx.node.target}:${ctx.node.pid}:${ctx.node.url}`;
  let pending = ctx.cache.get(key) as Promise<T> | undefined;
  if (!pending) {
    const rpc = new RpcClient(ctx.node.url, { maxSockets: 2 });
    pending = prepare(rpc).finally(() => rpc.close());
    ctx.cache.set(key, pending);
  }
  return pending;
}

/** Sends raw transactions in one JSON-RPC batch, then mines exactly one block with them (`evm_mine`). */
export async function mineBlock(rpc: RpcClient, raws: readonly Hex[]): Promise<void> {
  const out = await rpc.batch(raws.map((raw) => ({ method: "eth_sendRawTransaction", params: [raw] })));
  const failed = out.find((o) => o.error);
  if (failed?.error) throw new Error(`eth_sendRawTransaction: ${failed.error.message}`);
  await rpc.call("evm_mine");
}
