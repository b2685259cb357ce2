import type { Common } from "@ethereumjs/common";
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { Caches, CacheType, MerkleStateManager } from "@ethereumjs/statemanager";
import { ValueEncoding } from "@ethereumjs/util";
import type { TrieDatabase } from "../storage/trie-db.js";

/** Opens Merkle state managers at any stored state root (archive reads, block building). */
export class StateFactory {
  constructor(
    private readonly db: TrieDatabase,
    private readonly common: Common,
  ) {}

  /**
   * A state manager positioned at `stateRoot`; it writes new trie nodes to the shared trie database.
   * `cache` adds account, code and storage caches: `lru` (bounded) for state that is only read (the
   * head), `map` for state that is written and reverted (blocks being built, calls): reverting an LRU
   * cache costs time proportional to its capacity.
   */
  at(stateRoot: Uint8Array, cache?: "lru" | "map"): MerkleStateManager {
    const trie = new MerklePatriciaTrie({
      db: this.db,
      root: stateRoot,
      useKeyHashing: true,
      valueEncoding: ValueEncoding.Bytes,
      cacheSize: 50_000,
      common: this.common,
    });
    return new MerkleStateManager({
      trie,
      common: this.common,
      ...(cache === undefined ? {} : { caches: createCaches(cache) }),
    });
  }

  /** A state manager over an empty state. */
  empty(): MerkleStateManager {
    return this.at(new MerklePatriciaTrie({ useKeyHashing: true }).EMPTY_TRIE_ROOT);
  }
}

/** Entries per LRU cache: the cache preallocates its capacity, and a head cache lives for one block. */
const LRU_SIZE = 2_000;

function createCaches(kind: "lru" | "map"): Caches {
  if (kind === "map") {
    const type = CacheType.ORDERED_MAP;
    return new Caches({ account: { type }, storage: { type }, code: { type } });
  }
  const lru = { type: CacheType.LRU, size: LRU_SIZE };
  return new Caches({ account: lru, storage: lru, code: { type: CacheType.LRU, size: 1000 } });
}
