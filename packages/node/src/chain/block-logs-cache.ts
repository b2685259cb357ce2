import { type Hex, toData } from "@strata/protocol";
import type { BoundedStructure } from "../metrics/bounded-structure.js";
import type { BlockRef, StoredReceipt } from "../storage/records.js";
import { formatLogsJson } from "./log-format.js";

/** A block's logs, decoded and serialized once: each log's address and topics as hex, and its JSON text. */
export interface BlockLogs {
  readonly keys: readonly { readonly address: Hex; readonly topics: readonly Hex[] }[];
  readonly json: readonly string[];
}

/** Bounds of a {@link BlockLogsCache}. */
export interface BlockLogsCacheBounds {
  /** Total size of the cached entries, bytes (JSON text plus a per-block and per-log allowance). */
  readonly maxBytes: number;
  /** Blocks kept, however few logs they hold. */
  readonly maxBlocks: number;
}

/** Default bounds: 64 MiB, 16,384 blocks. */
export const BLOCK_LOGS_CACHE_BOUNDS: BlockLogsCacheBounds = {
  maxBytes: 64 * 1024 * 1024,
  maxBlocks: 16_384,
};

/**
 * What an entry costs besides its JSON text: the map entry, its key and the arrays (per block), and
 * each log's address and topics as hex strings (per log). Without it a block with no logs weighed
 * nothing, and the entries of log-less blocks piled up without bound.
 */
const BLOCK_OVERHEAD_BYTES = 256;
const LOG_OVERHEAD_BYTES = 320;

/**
 * Serialized logs of recently queried blocks. A committed block's logs never change, so log queries
 * that cover the same blocks again (dashboards, indexers, polling dApps) skip decoding receipts and
 * formatting. Bounded by the total size of the entries and by the number of blocks; the oldest
 * blocks go first.
 */
export class BlockLogsCache {
  private readonly entries = new Map<string, { readonly logs: BlockLogs; readonly bytes: number }>();
  private bytes = 0;

  constructor(private readonly bounds: BlockLogsCacheBounds = BLOCK_LOGS_CACHE_BOUNDS) {}

  /** The logs of block `ref`, from the cache or built from `receipts()`. */
  get(ref: BlockRef, receipts: () => readonly StoredReceipt[] | undefined): BlockLogs | undefined {
    const key = Buffer.from(ref.hash).toString("hex");
    const cached = this.entries.get(key);
    if (cached) return cached.logs;
    const stored = receipts();
    if (!stored) return undefined;
    const keys = stored.flatMap((r) =>
      r.logs.map((log) => ({ address: toData(log.address), topics: log.topics.map(toData) })),
    );
    const logs: BlockLogs = { keys, json: formatLogsJson(ref, stored) };
    const bytes =
      BLOCK_OVERHEAD_BYTES +
      keys.length * LOG_OVERHEAD_BYTES +
      logs.json.reduce((sum, text) => sum + text.length, 0);
    if (bytes > this.bounds.maxBytes) return logs;
    while (
      this.entries.size > 0 &&
      (this.bytes + bytes > this.bounds.maxBytes || this.entries.size >= this.bounds.maxBlocks)
    )
      this.evictOldest();
    this.entries.set(key, { logs, bytes });
    this.bytes += bytes;
    return logs;
  }

  /** The cache's size in bytes and in blocks, for the metrics. */
  boundedStructures(): BoundedStructure[] {
    return [
      { name: "log_json", unit: "bytes", bound: this.bounds.maxBytes, size: () => this.bytes },
      {
        name: "log_json_blocks",
        unit: "entries",
        bound: this.bounds.maxBlocks,
        size: () => this.entries.size,
      },
    ];
  }

  private evictOldest(): void {
    const [key, entry] = this.entries.entries().next().value as [string, { bytes: number }];
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
