import type { Block } from "@ethereumjs/block";
import { toQuantity } from "@strata/protocol";
import { formatBlock } from "../../format/block.js";
import { formatReceipt } from "../../format/receipt.js";
import { formatTransaction } from "../../format/transaction.js";
import { defineMethods } from "../../registry.js";
import { findBlock, isPending, type RpcServices } from "../../services.js";

function hashBytes(hash: string): Uint8Array {
  return Buffer.from(hash.slice(2), "hex");
}

function receiptsOf(services: RpcServices, block: Block) {
  return services.chain.store.receipts(block.hash()) ?? [];
}

function blockByHash(services: RpcServices, hash: string): Block | undefined {
  return services.chain.blockByHash(hashBytes(hash));
}

function transactionAt(services: RpcServices, block: Block | undefined, index: bigint) {
  if (!block || index >= BigInt(block.transactions.length)) return null;
  const i = Number(index);
  const sender = receiptsOf(services, block)[i]!.sender;
  return formatTransaction(block.transactions[i]!, sender, { block, index: i });
}

/** Blocks, their transactions by position, and their receipts. */
export const blockMethods = defineMethods({
  eth_getBlockByNumber: ([at, full], services) => {
    // As geth: the pending block is not sealed, so it has no hash, nonce or miner yet.
    if (isPending(at)) return services.pending.formatted(full === true);
    const block = findBlock(services, at);
    return block ? formatBlock(block, full === true, full ? receiptsOf(services, block) : []) : null;
  },
  eth_getBlockByHash: ([hash, full], services) => {
    const block = blockByHash(services, hash);
    return block ? formatBlock(block, full === true, full ? receiptsOf(services, block) : []) : null;
  },
  eth_getBlockTransactionCountByNumber: ([at], services) => {
    const block = findBlock(services, at);
    return block ? toQuantity(block.transactions.length) : null;
  },
  eth_getBlockTransactionCountByHash: ([hash], services) => {
    const block = blockByHash(services, hash);
    return block ? toQuantity(block.transactions.length) : null;
  },
  eth_getTransactionByBlockNumberAndIndex: ([at, index], services) =>
    transactionAt(services, findBlock(services, at), index),
  eth_getTransactionByBlockHashAndIndex: ([hash, index], services) =>
    transactionAt(services, blockByHash(services, hash), index),
  eth_getBlockReceipts: ([at], services) => {
    const block = findBlock(services, at);
    if (!block) return null;
    const receipts = receiptsOf(services, block);
    return block.transactions.map((_, i) => formatReceipt(block, receipts, i));
  },
  eth_getUncleCountByBlockNumber: ([at], services) => (findBlock(services, at) ? "0x0" : null),
  eth_getUncleCountByBlockHash: ([hash], services) => (blockByHash(services, hash) ? "0x0" : null),
  eth_getUncleByBlockNumberAndIndex: () => null,
  eth_getUncleByBlockHashAndIndex: () => null,
});
