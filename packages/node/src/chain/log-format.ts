import type { Block } from "@ethereumjs/block";
import { type RpcLog, toData, toQuantity } from "@strata/protocol";
import type { BlockRef, StoredLog, StoredReceipt } from "../storage/records.js";

/** Formats the logs of a block that pass `keep`, with block-wide log indexes (execution-apis `Log`). */
export function formatLogsOf(
  block: Block,
  receipts: readonly StoredReceipt[],
  keep: (log: StoredLog, txIndex: number) => boolean = () => true,
): RpcLog[] {
  return formatLogs(
    { hash: block.hash(), number: block.header.number, timestamp: block.header.timestamp },
    receipts,
    keep,
  );
}

/** Formats the logs of the block `ref` from its receipts alone (no block decoding). */
export function formatLogs(
  ref: BlockRef,
  receipts: readonly StoredReceipt[],
  keep: (log: StoredLog, txIndex: number) => boolean = () => true,
): RpcLog[] {
  const blockHash = toData(ref.hash);
  const blockNumber = toQuantity(ref.number);
  const blockTimestamp = toQuantity(ref.timestamp);
  const out: RpcLog[] = [];
  let logIndex = 0;
  receipts.forEach((receipt, txIndex) => {
    const transactionHash = toData(receipt.txHash);
    for (const log of receipt.logs) {
      if (keep(log, txIndex)) {
        out.push({
          address: toData(log.address),
          topics: log.topics.map(toData),
          data: toData(log.data),
          blockNumber,
          transactionHash,
          transactionIndex: toQuantity(txIndex),
          blockHash,
          blockTimestamp,
          logIndex: toQuantity(logIndex),
          removed: false,
        });
      }
      logIndex++;
    }
  });
  return out;
}
