import type { BatchDBOp, DB } from "@ethereumjs/util";
import { unprefixedHexToBytes } from "@ethereumjs/util";
import { LRUCache } from "lru-cache";
import type { BoundedStructure } from "../metrics/bounded-structure.js";
import type { KVStore, WriteOp } from "./kv.js";

/** Trie nodes kept in memory across every state opened on the database (about 10–50 MB). */
const NODE_CACHE_ENTRIES = 100_000;

/**
 * The trie node database handed to @ethereumjs/mpt. Reads fall through to the store; writes are held
 * in memory until {@link TrieDatabase.drain} hands them to the block commit, so state changes land in
 * the same storage transaction as the block. Nodes are never deleted: every past state root stays
 * readable (archive node).
 *
 * Nodes are addressed by their hash, so one node cache serves every trie opened on the database:
 * states opened per block or per call start warm and allocate no cache of their own.
 */
export class TrieDatabase implements DB<string, string | Uint8Array> {
  private pending = new Map<string, Uint8Array>();
  private readonly nodes: LRUCache<string, Uint8Array>;

  /** `nodeCacheEntries`: the trie nodes kept in memory. */
  constructor(
    private readonly kv: KVStore,
    private readonly nodeCacheEntries = NODE_CACHE_ENTRIES,
  ) {
    this.nodes = new LRUCache({ max: nodeCacheEntries });
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const known = this.pending.get(key) ?? this.nodes.get(key);
    if (known) return known;
    const stored = this.kv.get("trie", unprefixedHexToBytes(key));
    if (stored) this.nodes.set(key, stored);
    return stored;
  }

  async put(key: string, value: string | Uint8Array): Promise<void> {
    this.pending.set(key, typeof value === "string" ? unprefixedHexToBytes(value) : value);
  }

  async del(): Promise<void> {}

  async batch(ops: BatchDBOp<string, string | Uint8Array>[]): Promise<void> {
    for (const op of ops) if (op.type === "put") await this.put(op.key, op.value);
  }

  shallowCopy(): DB<string, string | Uint8Array> {
    return this;
  }

  async open(): Promise<void> {}

  /** The node cache, for the metrics. */
  boundedStructures(): BoundedStructure[] {
    return [
      { name: "trie_nodes", unit: "entries", bound: this.nodeCacheEntries, size: () => this.nodes.size },
    ];
  }

  /** Takes the writes accumulated since the last drain, as store operations. */
  drain(): WriteOp[] {
    const ops: WriteOp[] = [];
    for (const [key, value] of this.pending) {
      ops.push({ bucket: "trie", key: unprefixedHexToBytes(key), value });
      // The newest nodes are the ones the next block and the next reads walk first.
      this.nodes.set(key, value);
    }
    this.pending = new Map();
    return ops;
  }
}
