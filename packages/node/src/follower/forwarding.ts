import type { Hex } from "@strata/protocol";
import type { SourceClient } from "./source-client.js";

/**
 * Where a follower's `eth_sendRawTransaction` sends transactions: to the node that produces blocks,
 * whose answer (hash or error) comes back unchanged.
 */
export interface TransactionForwarder {
  /** Submits a signed transaction to the block producer; answers its hash. */
  sendRawTransaction(raw: Hex): Promise<string>;
}

/** Forwards transactions to `source`, the node this follower syncs from. */
export function forwardTo(source: SourceClient): TransactionForwarder {
  return { sendRawTransaction: (raw) => source.call("eth_sendRawTransaction", [raw]) };
}
