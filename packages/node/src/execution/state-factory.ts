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
   * `cached` adds account, code and storage caches: for state that is read many times (the head) or
   * touched repeatedly (a block being built).
   */
  at(stateRoot: Uint8Array, cached = false): MerkleStateManager {
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
      ...(cached
        ? { caches: new Caches({ account: { type: CacheType.LRU }, storage: { type: CacheType.LRU } }) }
        : {}),
    });
  }

  /** A state manager over an empty state. */
  empty(): MerkleStateManager {
    return this.at(new MerklePatriciaTrie({ useKeyHashing: true }).EMPTY_TRIE_ROOT);
  }
}
