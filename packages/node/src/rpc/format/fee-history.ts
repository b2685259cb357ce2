import { toQuantity } from "@strata/protocol";
import type { FeeHistory } from "../../fees/fee-oracle.js";

/** Formats a {@link FeeHistory} as `eth_feeHistory` answers it: fees as quantities, ratios as numbers. */
export function formatFeeHistory(history: FeeHistory) {
  return {
    oldestBlock: toQuantity(history.oldestBlock),
    baseFeePerGas: history.baseFeePerGas.map((fee) => toQuantity(fee)),
    gasUsedRatio: [...history.gasUsedRatio],
    baseFeePerBlobGas: history.baseFeePerBlobGas.map((fee) => toQuantity(fee)),
    blobGasUsedRatio: [...history.blobGasUsedRatio],
    ...(history.reward ? { reward: history.reward.map((tips) => tips.map((fee) => toQuantity(fee))) } : {}),
  };
}
