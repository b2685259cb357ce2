import type { Common } from "@ethereumjs/common";
import { createTx, type TypedTransaction, type TypedTxData } from "@ethereumjs/tx";
import { Address, createZeroAddress, hexToBytes } from "@ethereumjs/util";
import type { CallRequest } from "@strata/protocol";

/**
 * An unsigned transaction for `debug_traceCall`, whose sender is the request's `from` (the zero
 * address by default), typed after the fee fields the request names.
 */
export function callTransaction(
  request: CallRequest,
  gasLimit: bigint,
  common: Common,
  baseFee: bigint,
): { tx: TypedTransaction; sender: Address } {
  const sender = request.from ? new Address(hexToBytes(request.from)) : createZeroAddress();
  const base = {
    nonce: request.nonce ?? 0n,
    gasLimit,
    ...(request.to ? { to: request.to } : {}),
    value: request.value ?? 0n,
    data: request.input ?? request.data ?? "0x",
  };
  let data: TypedTxData;
  if (request.maxFeePerGas !== undefined || request.maxPriorityFeePerGas !== undefined) {
    const tip = request.maxPriorityFeePerGas ?? 0n;
    data = {
      ...base,
      type: 2,
      maxFeePerGas: request.maxFeePerGas ?? baseFee + tip,
      maxPriorityFeePerGas: tip,
      accessList: request.accessList ?? [],
    };
  } else if (request.accessList !== undefined) {
    data = { ...base, type: 1, gasPrice: request.gasPrice ?? 0n, accessList: request.accessList };
  } else {
    data = { ...base, type: 0, gasPrice: request.gasPrice ?? 0n };
  }
  const tx = createTx(data, { common, freeze: false });
  tx.getSenderAddress = () => sender;
  return { tx, sender };
}
