import type { BatchDBOp, DB } from "@ethereumjs/util";
import { hexToBytes } from "@ethereumjs/util";
import type { KVStore, WriteOp } from "./kv.js";

/**
 * The trie node database handed to @ethereumjs/mpt. Reads fall through to the store; writes are held
 * in memory until {@link TrieDatabase.drain} hands them to the block commit, so state changes land in
 * the same storage transaction as the block. Nodes are never deleted: every past state root stays
 * readable (archive node).
 */
export class TrieDatabase implements DB<string, string | Uint8Array> {
  private pending = new Map<string, Uint8Array>();

  constructor(private readonly kv: KVStore) {}

  async get(key: string): Promise<Uint8Array | undefined> {
    return this.pending.get(key) ?? this.kv.get("trie", hexToBytes(`0x${key}`));
  }

  async put(key: string, value: string | Uint8Array): Promise<void> {
    this.pending.set(key, typeof value === "string" ? hexToBytes(`0x${value}`) : value);
  }

  async del(): Promise<void> {}

  async batch(ops: BatchDBOp<string, string | Uint8Array>[]): Promise<void> {
    for (const op of ops) if (op.type === "put") await this.put(op.key, op.value);
  }

  shallowCopy(): DB<string, string | Uint8Array> {
    return this;
  }

  async open(): Promise<void> {}

  /** Takes the writes accumulated since the last drain, as store operations. */
  drain(): WriteOp[] {
    const ops: WriteOp[] = [];
    for (const [key, value] of this.pending) ops.push({ bucket: "trie", key: hexToBytes(`0x${key}`), value });
    this.pending = new Map();
    return ops;
  }
}
