import type { Block } from "@ethereumjs/block";
import { toQuantity } from "@strata/protocol";
import { formatBlock } from "../../format/block.js";
import { formatReceipt } from "../../format/receipt.js";
import { effectiveGasPrice } from "../../format/transaction.js";
import type { RpcServices } from "../../services.js";

function receiptsOf(services: RpcServices, block: Block) {
  return services.chain.store.receipts(block.hash()) ?? [];
}

/** The block as Erigon's `ots_` methods shape it: no logs bloom, a transaction count and total difficulty. */
function otsBlock(block: Block, withTransactions: boolean, services: RpcServices) {
  const formatted: Record<string, unknown> = {
    ...formatBlock(block, withTransactions, withTransactions ? receiptsOf(services, block) : []),
    totalDifficulty: toQuantity(block.header.difficulty),
    transactionCount: block.transactions.length,
    logsBloom: null,
  };
  if (!withTransactions) delete formatted.transactions;
  return formatted;
}

/**
 * `ots_getBlockDetails`: the block without transactions, its issuance and the fees its senders paid.
 * Strata mints no block reward to the miner, so the issuance figures are zero.
 */
export function blockDetails(services: RpcServices, block: Block) {
  const receipts = receiptsOf(services, block);
  let totalFees = 0n;
  block.transactions.forEach((tx, i) => {
    totalFees += effectiveGasPrice(tx, block.header.baseFeePerGas) * (receipts[i]?.gasUsed ?? 0n);
  });
  return {
    block: otsBlock(block, false, services),
    issuance: { blockReward: "0x0", uncleReward: "0x0", issuance: "0x0" },
    totalFees: toQuantity(totalFees),
  };
}

/**
 * `ots_getBlockTransactions`: one page of the block's transactions (inputs cut to their 4-byte
 * selector) with their receipts (no logs or bloom). Pages count from the end of the block, as Erigon's.
 */
export function blockTransactions(services: RpcServices, block: Block, pageNumber: number, pageSize: number) {
  const full = otsBlock(block, true, services);
  const receipts = receiptsOf(services, block);
  const count = block.transactions.length;
  const end = Math.max(count - pageNumber * pageSize, 0);
  const start = Math.max(end - pageSize, 0);
  const transactions = (full.transactions as { input: string }[])
    .slice(start, end)
    .map((tx) => ({ ...tx, input: tx.input.length >= 10 ? tx.input.slice(0, 10) : tx.input }));
  const pageReceipts = [];
  for (let i = start; i < end; i++) {
    pageReceipts.push({ ...formatReceipt(block, receipts, i), logs: null, logsBloom: null });
  }
  return { fullblock: { ...full, transactions }, receipts: pageReceipts };
}
