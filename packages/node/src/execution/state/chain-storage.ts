import type { Common } from "@ethereumjs/common";
import type { NetworkFile } from "../../config/network.js";
import { ChainStore, type ChainStoreCacheBounds } from "../../storage/chain-store.js";
import type { KVStore } from "../../storage/kv.js";
import { LmdbKV } from "../../storage/lmdb-kv.js";
import { MemoryKV } from "../../storage/memory-kv.js";
import { TrieDatabase } from "../../storage/trie-db.js";
import { ChainView } from "../evm/chain-view.js";
import { createChainCommon } from "../evm/common.js";
import { StateFactory } from "./state-factory.js";

/** The store of a chain and the views execution reads it through, as one opening of it. */
export interface ChainStorage {
  readonly kv: KVStore;
  readonly common: Common;
  readonly trieDb: TrieDatabase;
  readonly states: StateFactory;
  readonly store: ChainStore;
  readonly chainView: ChainView;
  /**
   * Makes the next reads see every commit made so far, by any thread (a reader's snapshot otherwise
   * lasts until its next event-loop turn); nothing to do in memory.
   */
  refresh(): void;
  /** Closes the store (after its last write is flushed). */
  close(): Promise<void>;
}

/** How a chain's store is opened. */
export interface ChainStorageOptions {
  /**
   * Whether a commit resolves only once it is flushed (default), or once it is visible (importing,
   * which announces nothing and can be rerun after a crash).
   */
  readonly durableCommits?: boolean;
  /**
   * A store that lasts one run (in memory): never flushed, and each commit made synchronously on the
   * calling thread (see {@link LmdbKV}).
   */
  readonly ephemeral?: boolean;
  /** The caches' bounds, when not the node's. */
  readonly cacheBounds?: StorageCacheBounds;
}

/** The bounds of the caches of a chain's storage; each one left out is the node's. */
export interface StorageCacheBounds {
  readonly store?: ChainStoreCacheBounds;
  /** Trie nodes kept in memory. */
  readonly trieNodes?: number;
}

/** The directory of the LMDB store inside a node's datadir. */
export function chaindataDir(datadir: string): string {
  return `${datadir}/chaindata`;
}

/**
 * Opens the store of `network`'s chain at `chaindata` (an LMDB directory, see {@link chaindataDir}),
 * or in memory when null, with the common, trie database, state factory and chain view over it.
 * Writes nothing: a reader (an execution worker) opens the node's store this way too.
 */
export async function openChainStorage(
  network: NetworkFile,
  chaindata: string | null,
  options: ChainStorageOptions = {},
): Promise<ChainStorage> {
  const lmdb = chaindata === null ? undefined : new LmdbKV(chaindata, options);
  const kv: KVStore = lmdb ?? new MemoryKV();
  try {
    const common = await createChainCommon(network);
    const trieDb = new TrieDatabase(kv, options.cacheBounds?.trieNodes);
    const store = new ChainStore(kv, common, options.cacheBounds?.store);
    return {
      kv,
      common,
      trieDb,
      states: new StateFactory(trieDb, common),
      store,
      chainView: new ChainView(store),
      refresh: () => lmdb?.refresh(),
      close: () => store.close(),
    };
  } catch (error) {
    await kv.close();
    throw error;
  }
}
