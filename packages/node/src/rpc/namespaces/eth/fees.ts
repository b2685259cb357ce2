import { InvalidParamsError, toQuantity } from "@strata/protocol";
import { formatFeeHistory } from "../../format/fee-history.js";
import { defineMethods } from "../../registry.js";
import { findBlock } from "../../services.js";

/** Gas price suggestions and fee history, from the fee oracle. */
export const feeMethods = defineMethods({
  eth_gasPrice: (_, services) => toQuantity(services.fees.gasPrice()),
  eth_maxPriorityFeePerGas: (_, services) => toQuantity(services.fees.suggestedTip()),
  eth_blobBaseFee: (_, services) => toQuantity(services.fees.blobBaseFee()),
  eth_feeHistory: ([count, newest, percentiles], services) => {
    const last = findBlock(services, newest);
    if (!last) throw new InvalidParamsError("invalid argument 1: block not found");
    if (percentiles?.some((p, i) => i > 0 && p < percentiles[i - 1]!)) {
      throw new InvalidParamsError("invalid argument 2: reward percentiles must be sorted");
    }
    return formatFeeHistory(services.fees.history(count, last, percentiles));
  },
});
