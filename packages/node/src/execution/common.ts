import { createBlockHeader } from "@ethereumjs/block";
import { type Common, createCommonFromGethGenesis } from "@ethereumjs/common";
import { createTx } from "@ethereumjs/tx";
import { createVM } from "@ethereumjs/vm";
import type { NetworkFile } from "../config/network.js";
import { nativeCrypto } from "../crypto/native-crypto.js";
import { cacheJumpAnalysis, fastEipLookup } from "./evm-tuning.js";

/**
 * Builds the @ethereumjs Common of a network from its geth-format genesis, with native sender
 * recovery, set to the rules in force at genesis (every fork of the shipped networks starts at 0).
 */
export async function createChainCommon(network: NetworkFile): Promise<Common> {
  const common = createCommonFromGethGenesis(
    network.genesis as Parameters<typeof createCommonFromGethGenesis>[0],
    {
      chain: network.name,
      customCrypto: nativeCrypto(),
    },
  );
  common.setHardforkBy({ blockNumber: 0n, timestamp: BigInt(network.genesis.timestamp) });
  memoizeParamUpdates(common);
  fastEipLookup(common);
  await cacheJumpAnalysis();
  // Merge every package's parameter table into this Common before any copy of it is made.
  createBlockHeader({}, { common });
  createTx({}, { common });
  await createVM({ common });
  return common;
}

/**
 * Every @ethereumjs transaction, header, EVM and VM constructor copies the Common and calls
 * `updateParams` with its package's constant parameter table, which deep-copies the table and rebuilds
 * the whole parameter cache: milliseconds per transaction, and blocks re-create all their transactions.
 * Copies share the parameter store with the Common they come from. Here a table seen for the first
 * time is merged into the copy and into the root Common; later merges of a known table are skipped.
 * Once every table has been seen (createChainCommon makes sure of it), every copy has the full cache.
 */
function memoizeParamUpdates(root: Common): void {
  const update = root.updateParams;
  const merged = new WeakSet<object>();
  root.updateParams = function (this: Common, params) {
    if (merged.has(params)) return;
    merged.add(params);
    update.call(root, params);
    if (this !== root) update.call(this, params);
  };
}
