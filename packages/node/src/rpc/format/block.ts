import type { Block, BlockHeader } from "@ethereumjs/block";
import { type RpcBlock, type RpcHeader, toData, toQuantity } from "@strata/protocol";
import type { StoredReceipt } from "../../storage/records.js";
import { formatTransaction } from "./transaction.js";

/** Formats a header as the execution-apis block fields (also the `newHeads` payload). */
export function formatHeader(header: BlockHeader): RpcHeader {
  const out: RpcHeader = {
    number: toQuantity(header.number),
    hash: toData(header.hash()),
    parentHash: toData(header.parentHash),
    nonce: toData(header.nonce),
    mixHash: toData(header.mixHash),
    sha3Uncles: toData(header.uncleHash),
    logsBloom: toData(header.logsBloom),
    transactionsRoot: toData(header.transactionsTrie),
    stateRoot: toData(header.stateRoot),
    receiptsRoot: toData(header.receiptTrie),
    miner: toData(header.coinbase.bytes),
    difficulty: toQuantity(header.difficulty),
    extraData: toData(header.extraData),
    gasLimit: toQuantity(header.gasLimit),
    gasUsed: toQuantity(header.gasUsed),
    timestamp: toQuantity(header.timestamp),
  };
  if (header.baseFeePerGas !== undefined) out.baseFeePerGas = toQuantity(header.baseFeePerGas);
  if (header.withdrawalsRoot !== undefined) out.withdrawalsRoot = toData(header.withdrawalsRoot);
  if (header.blobGasUsed !== undefined) out.blobGasUsed = toQuantity(header.blobGasUsed);
  if (header.excessBlobGas !== undefined) out.excessBlobGas = toQuantity(header.excessBlobGas);
  if (header.parentBeaconBlockRoot !== undefined)
    out.parentBeaconBlockRoot = toData(header.parentBeaconBlockRoot);
  if (header.requestsHash !== undefined) out.requestsHash = toData(header.requestsHash);
  return out;
}

/** Formats a block; `receipts` supply each transaction's sender when `fullTransactions` is true. */
export function formatBlock(
  block: Block,
  fullTransactions: boolean,
  receipts: readonly StoredReceipt[],
): RpcBlock {
  return {
    ...formatHeader(block.header),
    size: toQuantity(block.serialize().length),
    uncles: block.uncleHeaders.map((uncle) => toData(uncle.hash())),
    transactions: fullTransactions
      ? block.transactions.map((tx, index) =>
          formatTransaction(tx, receipts[index]!.sender, { block, index }),
        )
      : block.transactions.map((tx) => toData(tx.hash())),
    ...(block.withdrawals
      ? {
          withdrawals: block.withdrawals.map((w) => ({
            index: toQuantity(w.index),
            validatorIndex: toQuantity(w.validatorIndex),
            address: toData(w.address.bytes),
            amount: toQuantity(w.amount),
          })),
        }
      : {}),
  };
}
