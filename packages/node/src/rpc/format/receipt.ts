import type { Block } from "@ethereumjs/block";
import { Blob4844Tx } from "@ethereumjs/tx";
import { Bloom } from "@ethereumjs/vm";
import { type RpcReceipt, toData, toQuantity } from "@strata/protocol";
import { formatLogsOf } from "../../chain/log-format.js";
import type { StoredReceipt } from "../../storage/records.js";
import { effectiveGasPrice } from "./transaction.js";

/** Formats receipt `index` of `block` as execution-apis `ReceiptInfo`. */
export function formatReceipt(block: Block, receipts: readonly StoredReceipt[], index: number): RpcReceipt {
  const receipt = receipts[index]!;
  const tx = block.transactions[index]!;
  const { header } = block;
  // The chain's keccak (WebAssembly) rather than @ethereumjs' pure-JS default.
  const bloom = new Bloom(undefined, block.common);
  for (const log of receipt.logs) {
    bloom.add(log.address);
    for (const topic of log.topics) bloom.add(topic);
  }
  const out: RpcReceipt = {
    type: toQuantity(receipt.type),
    transactionHash: toData(tx.hash()),
    transactionIndex: toQuantity(index),
    blockHash: toData(block.hash()),
    blockNumber: toQuantity(block.header.number),
    from: toData(receipt.sender),
    to: tx.to ? toData(tx.to.bytes) : null,
    cumulativeGasUsed: toQuantity(receipt.cumulativeGasUsed),
    gasUsed: toQuantity(receipt.gasUsed),
    contractAddress: receipt.contractAddress ? toData(receipt.contractAddress) : null,
    logs: formatLogsOf(block, receipts, (_, txIndex) => txIndex === index),
    logsBloom: toData(bloom.bitvector),
    effectiveGasPrice: toQuantity(effectiveGasPrice(tx, header.baseFeePerGas)),
  };
  // Before Byzantium a receipt carries the post-transaction state root instead of a status.
  if (receipt.postState) out.root = toData(receipt.postState);
  else out.status = toQuantity(receipt.status);
  if (tx instanceof Blob4844Tx && header.excessBlobGas !== undefined) {
    out.blobGasUsed = toQuantity(BigInt(tx.numBlobs()) * tx.common.param("blobGasPerBlob"));
    out.blobGasPrice = toQuantity(header.getBlobGasPrice());
  }
  return out;
}
