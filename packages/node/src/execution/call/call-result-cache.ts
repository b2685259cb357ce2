import type { CallRequest } from "@strata/protocol";
import { LRUCache } from "lru-cache";
import type { BoundedStructure } from "../../metrics/bounded-structure.js";

/** A settled call: its return data, or the (deterministic) error it ended with. */
export type CallResult = { readonly ok: Uint8Array } | { readonly error: Error };

/** What an entry costs besides its key's text and its return data: the entry and the result object. */
const ENTRY_OVERHEAD_BYTES = 200;

/**
 * Recent `eth_call` outcomes by (block, request). A call's outcome depends only on the state after
 * its block, the block's header and the request, so repeating the same call at the same block (the
 * way dApps poll balances and allowances) is answered without executing again. Bounded by entry
 * count and by total size (keys hold the whole request, calldata included, so a count alone let
 * large requests take gigabytes), and a single large result is not kept; the least recently used
 * entries go first.
 */
export class CallResultCache {
  private readonly entries: LRUCache<string, CallResult>;

  constructor(
    private readonly maxEntries = 10_000,
    private readonly maxBytes = 32 * 1024 * 1024,
    private readonly maxResultBytes = 64 * 1024,
  ) {
    this.entries = new LRUCache({ max: maxEntries, maxSize: maxBytes });
  }

  /** The cached outcome of `request` at the block with hash `blockHash`. */
  get(blockHash: Uint8Array, request: CallRequest): CallResult | undefined {
    return this.entries.get(cacheKey(blockHash, request));
  }

  /** Remembers an outcome; large results are not kept. */
  set(blockHash: Uint8Array, request: CallRequest, result: CallResult): void {
    if ("ok" in result && result.ok.length > this.maxResultBytes) return;
    const key = cacheKey(blockHash, request);
    const size = ENTRY_OVERHEAD_BYTES + key.length + ("ok" in result ? result.ok.length : 0);
    if (size > this.maxBytes) return;
    this.entries.set(key, result, { size });
  }

  /** Entries and bytes held, for the metrics. */
  boundedStructures(): BoundedStructure[] {
    return [
      { name: "call_results", unit: "entries", bound: this.maxEntries, size: () => this.entries.size },
      {
        name: "call_results_bytes",
        unit: "bytes",
        bound: this.maxBytes,
        size: () => this.entries.calculatedSize,
      },
    ];
  }
}

function cacheKey(blockHash: Uint8Array, request: CallRequest): string {
  return `${Buffer.from(blockHash).toString("hex")}:${JSON.stringify(request, (_, v) => (typeof v === "bigint" ? `n${v}` : v))}`;
}
