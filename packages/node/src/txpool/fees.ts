import { Capability, type TypedTransaction } from "@ethereumjs/tx";

/** The most the sender pays per gas: `maxFeePerGas`, or `gasPrice` for legacy and EIP-2930. */
export function maxFee(tx: TypedTransaction): bigint {
  return tx.supports(Capability.EIP1559FeeMarket)
    ? (tx as { maxFeePerGas: bigint }).maxFeePerGas
    : (tx as { gasPrice: bigint }).gasPrice;
}

/** The most the sender tips per gas: `maxPriorityFeePerGas`, or `gasPrice` for legacy and EIP-2930. */
export function maxTip(tx: TypedTransaction): bigint {
  return tx.supports(Capability.EIP1559FeeMarket)
    ? (tx as { maxPriorityFeePerGas: bigint }).maxPriorityFeePerGas
    : (tx as { gasPrice: bigint }).gasPrice;
}

/** The tip per gas the block producer earns from `tx` at `baseFee`. */
export function effectiveTip(tx: TypedTransaction, baseFee: bigint): bigint {
  const fee = maxFee(tx);
  const tip = maxTip(tx);
  return fee - baseFee < tip ? fee - baseFee : tip;
}
