import type { CallRequest } from "@strata/protocol";
import { LRUCache } from "lru-cache";

/** A settled call: its return data, or the (deterministic) error it ended with. */
export type CallResult = { readonly ok: Uint8Array } | { readonly error: Error };

/**
 * Recent `eth_call` outcomes by (block, request). A call's outcome depends only on the state after
 * its block, the block's header and the request, so repeating the same call at the same block (the
 * way dApps poll balances and allowances) is answered without executing again. Bounded by entry
 * count and by the size of a single result; the least recently used entries go first.
 */
export class CallResultCache {
  private readonly entries: LRUCache<string, CallResult>;

  constructor(
    maxEntries = 10_000,
    private readonly maxResultBytes = 64 * 1024,
  ) {
    this.entries = new LRUCache({ max: maxEntries });
  }

  /** The cached outcome of `request` at the block with hash `blockHash`. */
  get(blockHash: Uint8Array, request: CallRequest): CallResult | undefined {
    return this.entries.get(cacheKey(blockHash, request));
  }

  /** Remembers an outcome; large results are not kept. */
  set(blockHash: Uint8Array, request: CallRequest, result: CallResult): void {
    if ("ok" in result && result.ok.length > this.maxResultBytes) return;
    this.entries.set(cacheKey(blockHash, request), result);
  }
}

function cacheKey(blockHash: Uint8Array, request: CallRequest): string {
  return `${Buffer.from(blockHash).toString("hex")}:${JSON.stringify(request, (_, v) => (typeof v === "bigint" ? `n${v}` : v))}`;
}
