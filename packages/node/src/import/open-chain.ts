import type { Common } from "@ethereumjs/common";
import { Chain } from "../chain/chain.js";
import type { NetworkFile } from "../config/network.js";
import { ChainView } from "../execution/chain-view.js";
import { createChainCommon } from "../execution/common.js";
import { StateFactory } from "../execution/state-factory.js";
import { ChainStore } from "../storage/chain-store.js";
import type { KVStore } from "../storage/kv.js";
import { LmdbKV } from "../storage/lmdb-kv.js";
import { MemoryKV } from "../storage/memory-kv.js";
import { TrieDatabase } from "../storage/trie-db.js";

/** A chain opened without the node's services: what importing and initialising need. */
export interface OpenedChain {
  readonly chain: Chain;
  readonly common: Common;
  readonly trieDb: TrieDatabase;
  readonly chainView: ChainView;
  close(): Promise<void>;
}

/**
 * Opens (creating when empty, with its genesis) the chain of `network` in `datadir`'s store, or in
 * memory when `datadir` is null, laid out exactly as the node opens it.
 */
export async function openChain(network: NetworkFile, datadir: string | null): Promise<OpenedChain> {
  // Importing announces nothing and can be rerun after a crash: no wait for a flush per block.
  const kv: KVStore =
    datadir === null ? new MemoryKV() : new LmdbKV(`${datadir}/chaindata`, { durableCommits: false });
  try {
    const common = await createChainCommon(network);
    const trieDb = new TrieDatabase(kv);
    const states = new StateFactory(trieDb, common);
    const store = new ChainStore(kv, common);
    const chain = await Chain.open(network, store, states, trieDb, common);
    return { chain, common, trieDb, chainView: new ChainView(store), close: () => store.close() };
  } catch (error) {
    await kv.close();
    throw error;
  }
}
