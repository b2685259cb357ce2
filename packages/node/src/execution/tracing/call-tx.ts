import type { Common } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { Address } from "@ethereumjs/util";
import type { CallRequest } from "@strata/protocol";
import { callRequestTransaction } from "../call/call-request-tx.js";

/** The unsigned transaction of a `debug_traceCall` request, with its sender (the zero address by default). */
export function callTransaction(
  request: CallRequest,
  gasLimit: bigint,
  common: Common,
  baseFee: bigint,
): { tx: TypedTransaction; sender: Address } {
  const tx = callRequestTransaction(request, gasLimit, common, baseFee);
  return { tx, sender: tx.getSenderAddress() };
}
