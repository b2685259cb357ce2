import type { Block } from "@ethereumjs/block";
import type { TransactionType } from "@ethereumjs/tx";
import { Bloom, encodeReceipt } from "@ethereumjs/vm";
import { type BlockSelector, type Hex, toData } from "@strata/protocol";
import { NotFoundError } from "../../../errors/domain-errors.js";
import { receiptsCarryStateRoot, replayReceipts } from "../../../execution/block/block-replay.js";
import { ChainView } from "../../../execution/evm/chain-view.js";
import type { StoredReceipt } from "../../../storage/records.js";
import { defineMethods } from "../../registry.js";
import { findBlock, type RpcServices } from "../../services.js";
import { requireBlockAccessList } from "../eth/block-access-list.js";

/** A receipt in its consensus encoding (EIP-2718 envelope for typed transactions), as in the receipts trie. */
export function encodeStoredReceipt(receipt: StoredReceipt): Uint8Array {
  const bloom = new Bloom();
  const logs: [Uint8Array, Uint8Array[], Uint8Array][] = [];
  for (const log of receipt.logs) {
    bloom.add(log.address);
    for (const topic of log.topics) bloom.add(topic);
    logs.push([log.address, [...log.topics], log.data]);
  }
  return encodeReceipt(
    {
      status: receipt.status,
      cumulativeBlockGasUsed: receipt.cumulativeGasUsed,
      bitvector: bloom.bitvector,
      logs,
    },
    receipt.type as TransactionType,
  );
}

/**
 * The block a raw getter names. As geth: a block number or tag beyond the chain answers `null`
 * (undefined here), an unknown hash is an error.
 */
function selectBlock(services: RpcServices, at: BlockSelector, what: "header" | "block"): Block | undefined {
  const block = findBlock(services, at);
  if (!block && "hash" in at) throw new NotFoundError(`${what} ${at.hash} not found`);
  return block;
}

/** The spec's `debug_getRaw*` getters (consensus encodings) and `debug_getBadBlocks`. */
export const debugRawMethods = defineMethods({
  debug_getRawHeader: ([at], services) => {
    const block = selectBlock(services, at, "header");
    return block ? toData(block.header.serialize()) : null;
  },
  debug_getRawBlock: ([at], services) => {
    const block = selectBlock(services, at, "block");
    return block ? toData(block.serialize()) : null;
  },
  debug_getRawReceipts: async ([at], services) => {
    const block = findBlock(services, at);
    if (block) return rawReceipts(services, block);
    // geth reads receipts by hash directly, so an unknown hash simply has none.
    return "hash" in at ? [] : null;
  },
  debug_getRawTransaction: ([hash], services) => {
    const bytes = Buffer.from(hash.slice(2), "hex");
    const location = services.chain.store.txLocation(bytes);
    const block = location ? services.chain.blockByHash(location.blockHash) : undefined;
    const mined = location && block?.transactions[location.index];
    if (mined) return toData(mined.serialize());
    const pooled = services.pool.get(hash);
    return pooled ? toData(pooled.tx.serialize()) : null;
  },
  debug_getRawBlockAccessList: ([at], services) => requireBlockAccessList(findBlock(services, at)),
  // Blocks are only produced locally or imported with every check applied before anything is
  // written; a block that fails is refused outright, so there is never a bad block to report.
  debug_getBadBlocks: () => [],
});

async function rawReceipts(services: RpcServices, block: Block): Promise<Hex[]> {
  const { chain } = services;
  const parent = block.header.number > 0n ? chain.blockByHash(block.header.parentHash) : undefined;
  if (parent && block.transactions.length > 0 && receiptsCarryStateRoot(block, chain.common)) {
    const encoded = await replayReceipts(
      block,
      parent,
      chain.stateAt(parent),
      chain.common,
      new ChainView(chain.store),
    );
    return encoded.map(toData);
  }
  return (chain.store.receipts(block.hash()) ?? []).map((r) => toData(encodeStoredReceipt(r)));
}
