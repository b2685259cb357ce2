import type { Block } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { createVM, encodeReceipt, runBlock } from "@ethereumjs/vm";
import type { ChainView } from "../evm/chain-view.js";
import { scratchState } from "../state/scratch-state.js";

/**
 * Re-executes a stored block on its parent's state, in a scratch state that nothing reaches the
 * node's storage from, and returns its receipts in consensus encoding. Needed for blocks before
 * Byzantium, whose receipts carry the intermediate state root after each transaction, which the
 * node does not store.
 */
export async function replayReceipts(
  block: Block,
  parent: Block,
  parentState: MerkleStateManager,
  common: Common,
  chainView: ChainView,
): Promise<Uint8Array[]> {
  const blockCommon = common.copy();
  blockCommon.setHardforkBy({ blockNumber: block.header.number, timestamp: block.header.timestamp });
  const state = scratchState(parentState, parent.header.stateRoot, blockCommon);
  const vm = await createVM({ common: blockCommon, stateManager: state, blockchain: chainView });
  const result = await runBlock(vm, {
    block,
    root: parent.header.stateRoot,
    skipBlockValidation: true,
    skipHeaderValidation: true,
    skipHardForkValidation: true,
    clearCache: false,
  });
  return result.receipts.map((receipt, i) => encodeReceipt(receipt, block.transactions[i]!.type));
}

/** Whether receipts of blocks under `common`'s rules at `block` carry a state root instead of a status (pre-Byzantium). */
export function receiptsCarryStateRoot(block: Block, common: Common): boolean {
  const hardfork = common.getHardforkBy({
    blockNumber: block.header.number,
    timestamp: block.header.timestamp,
  });
  return !common.hardforkGteHardfork(hardfork, "byzantium");
}
