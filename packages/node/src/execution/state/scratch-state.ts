import type { Common } from "@ethereumjs/common";
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { Caches, CacheType, MerkleStateManager } from "@ethereumjs/statemanager";
import { type BatchDBOp, type DB, ValueEncoding } from "@ethereumjs/util";

type NodeDb = DB<string, string | Uint8Array>;

/** Trie nodes read from a base database; nodes written stay in this object and vanish with it. */
class ScratchTrieDb implements NodeDb {
  private readonly written = new Map<string, string | Uint8Array>();

  constructor(private readonly base: NodeDb) {}

  async get(key: string): Promise<string | Uint8Array | undefined> {
    return this.written.get(key) ?? this.base.get(key);
  }

  async put(key: string, value: string | Uint8Array): Promise<void> {
    this.written.set(key, value);
  }

  async del(): Promise<void> {}

  async batch(ops: BatchDBOp<string, string | Uint8Array>[]): Promise<void> {
    for (const op of ops) if (op.type === "put") this.written.set(op.key, op.value);
  }

  shallowCopy(): NodeDb {
    return this;
  }

  async open(): Promise<void> {}
}

/**
 * A state manager positioned at `stateRoot` that reads the node's trie nodes through `base` (any
 * state manager over the node's trie database) and keeps every node it writes to itself: state roots
 * of simulated blocks can be computed without a single node reaching the node's storage.
 */
export function scratchState(
  base: MerkleStateManager,
  stateRoot: Uint8Array,
  common: Common,
): MerkleStateManager {
  // The node database is only reachable through the base manager's account trie.
  const baseTrie = (base as unknown as { _trie: MerklePatriciaTrie })._trie;
  const trie = new MerklePatriciaTrie({
    db: new ScratchTrieDb(baseTrie.database().db as NodeDb),
    root: stateRoot,
    useKeyHashing: true,
    valueEncoding: ValueEncoding.Bytes,
    common,
  });
  const type = CacheType.ORDERED_MAP;
  return new MerkleStateManager({
    trie,
    common,
    caches: new Caches({ account: { type }, storage: { type }, code: { type } }),
  });
}
