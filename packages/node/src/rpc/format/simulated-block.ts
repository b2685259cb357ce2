import { toData, toQuantity } from "@strata/protocol";
import { formatLogsOf } from "../../chain/log-format.js";
import type { SimulatedBlock } from "../../execution/simulate/simulator.js";
import { formatBlock } from "./block.js";

/** A simulated block as geth answers it: the block object plus `calls`, each call's outcome. */
export function formatSimulatedBlock(simulated: SimulatedBlock, fullTransactions: boolean) {
  const { block, calls, receipts } = simulated;
  const logs = formatLogsOf(block, receipts);
  return {
    ...formatBlock(block, fullTransactions, receipts),
    calls: calls.map((call, i) => {
      const index = toQuantity(i);
      return {
        returnData: toData(call.returnData),
        // geth numbers a call's logs among all logs emitted in the block, kept or not.
        logs: logs
          .filter((log) => log.transactionIndex === index)
          .map((log, j) => ({ ...log, logIndex: toQuantity(call.logs[j]?.index ?? 0) })),
        gasUsed: toQuantity(call.gasUsed),
        maxUsedGas: toQuantity(call.maxUsedGas),
        status: toQuantity(call.status),
        ...(call.error ? { error: call.error } : {}),
      };
    }),
  };
}
