import { type Hex, toData } from "@strata/protocol";
import type { BlockRef, StoredReceipt } from "../storage/records.js";
import { formatLogsJson } from "./log-format.js";

/** A block's logs, decoded and serialized once: each log's address and topics as hex, and its JSON text. */
export interface BlockLogs {
  readonly keys: readonly { readonly address: Hex; readonly topics: readonly Hex[] }[];
  readonly json: readonly string[];
}

/**
 * Serialized logs of recently queried blocks. A committed block's logs never change, so log queries
 * that cover the same blocks again (dashboards, indexers, polling dApps) skip decoding receipts and
 * formatting. Bounded by the total size of the cached JSON; the oldest blocks go first.
 */
export class BlockLogsCache {
  private readonly entries = new Map<string, BlockLogs>();
  private bytes = 0;

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  /** The logs of block `ref`, from the cache or built from `receipts()`. */
  get(ref: BlockRef, receipts: () => readonly StoredReceipt[] | undefined): BlockLogs | undefined {
    const key = Buffer.from(ref.hash).toString("hex");
    const cached = this.entries.get(key);
    if (cached) return cached;
    const stored = receipts();
    if (!stored) return undefined;
    const keys = stored.flatMap((r) =>
      r.logs.map((log) => ({ address: toData(log.address), topics: log.topics.map(toData) })),
    );
    const entry: BlockLogs = { keys, json: formatLogsJson(ref, stored) };
    const size = entry.json.reduce((sum, text) => sum + text.length, 0);
    if (size > this.maxBytes) return entry;
    while (this.bytes + size > this.maxBytes && this.entries.size > 0) this.evictOldest();
    this.entries.set(key, entry);
    this.bytes += size;
    return entry;
  }

  private evictOldest(): void {
    const [key, entry] = this.entries.entries().next().value as [string, BlockLogs];
    this.entries.delete(key);
    this.bytes -= entry.json.reduce((sum, text) => sum + text.length, 0);
  }
}
