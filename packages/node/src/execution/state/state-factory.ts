import type { Common } from "@ethereumjs/common";
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import type { Caches } from "@ethereumjs/statemanager";
import { ValueEncoding } from "@ethereumjs/util";
import type { TrieDatabase } from "../../storage/trie-db.js";
import { DecodedAccountStateManager } from "./decoded-account-cache.js";
import { createStateCaches } from "./state-caches.js";

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
   * cache costs time proportional to its capacity (see {@link createStateCaches}); or caches made
   * for it (a state carried from its parent's: {@link carriedState}).
   */
  at(stateRoot: Uint8Array, cache?: "lru" | "map" | Caches): DecodedAccountStateManager {
    const trie = new MerklePatriciaTrie({
      db: this.db,
      root: stateRoot,
      useKeyHashing: true,
      valueEncoding: ValueEncoding.Bytes,
      common: this.common,
    });
    return new DecodedAccountStateManager({
      trie,
      common: this.common,
      ...(cache === undefined
        ? {}
        : { caches: typeof cache === "string" ? createStateCaches(cache) : cache }),
    });
  }

  /** A state manager over an empty state. */
  empty(): DecodedAccountStateManager {
    return this.at(new MerklePatriciaTrie({ useKeyHashing: true }).EMPTY_TRIE_ROOT);
  }
}
