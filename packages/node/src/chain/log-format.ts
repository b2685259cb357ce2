import type { Block } from "@ethereumjs/block";
import { type RpcLog, toData, toQuantity } from "@strata/protocol";
import type { StoredLog, StoredReceipt } from "../storage/records.js";

/** Formats the logs of a block that pass `keep`, with block-wide log indexes (execution-apis `Log`). */
export function formatLogsOf(
  block: Block,
  receipts: readonly StoredReceipt[],
  keep: (log: StoredLog, txIndex: number) => boolean = () => true,
): RpcLog[] {
  const blockHash = toData(block.hash());
  const blockNumber = toQuantity(block.header.number);
  const blockTimestamp = toQuantity(block.header.timestamp);
  const out: RpcLog[] = [];
  let logIndex = 0;
  receipts.forEach((receipt, txIndex) => {
    const transactionHash = toData(block.transactions[txIndex]!.hash());
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
