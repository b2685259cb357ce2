import type { NetworkFile } from "../config/network.js";
import {
  type ChainStorage,
  type ChainStorageOptions,
  chaindataDir,
  openChainStorage,
} from "../execution/state/chain-storage.js";
import { Chain } from "./chain.js";

/** An opened chain: its canonical head and history over the storage it was opened on. */
export interface OpenedChain extends ChainStorage {
  readonly chain: Chain;
}

/**
 * Opens the chain of `network` in `datadir`'s store, or in memory when `datadir` is null, writing its
 * genesis when the store is empty. The node, `strata init`/`strata import` and the tests open a chain
 * this way; execution workers open the same store with {@link openChainStorage}.
 */
export async function openChain(
  network: NetworkFile,
  datadir: string | null,
  options: ChainStorageOptions = {},
): Promise<OpenedChain> {
  const storage = await openChainStorage(network, datadir === null ? null : chaindataDir(datadir), options);
  try {
    const chain = await Chain.open(network, storage.store, storage.states, storage.trieDb, storage.common);
    return { ...storage, chain };
  } catch (error) {
    await storage.close();
    throw error;
  }
}
