import type { Block } from "@ethereumjs/block";
import { Blob4844Tx, Capability, type TypedTransaction } from "@ethereumjs/tx";
import { type Hex, type RpcTransaction, toData, toQuantity } from "@strata/protocol";

/** Where a mined transaction sits; absent for pending transactions. */
export interface TxContext {
  readonly block: Block;
  readonly index: number;
}

/** Formats a transaction as execution-apis `TransactionInfo` (geth field set per type). */
export function formatTransaction(
  tx: TypedTransaction,
  sender: Uint8Array,
  context?: TxContext,
): RpcTransaction {
  const header = context?.block.header;
  const json = tx.toJSON();
  const out: RpcTransaction = {
    blockHash: context ? toData(context.block.hash()) : null,
    blockNumber: header ? toQuantity(header.number) : null,
    blockTimestamp: header ? toQuantity(header.timestamp) : null,
    from: toData(sender),
    gas: toQuantity(tx.gasLimit),
    gasPrice: toQuantity(effectiveGasPrice(tx, header?.baseFeePerGas)),
    hash: toData(tx.hash()),
    input: toData(tx.data),
    nonce: toQuantity(tx.nonce),
    to: tx.to ? toData(tx.to.bytes) : null,
    transactionIndex: context ? toQuantity(context.index) : null,
    value: toQuantity(tx.value),
    type: toQuantity(tx.type),
    v: toQuantity(tx.v ?? 0n),
    r: toQuantity(tx.r ?? 0n),
    s: toQuantity(tx.s ?? 0n),
  };
  if (tx.supports(Capability.EIP1559FeeMarket)) {
    const fee = tx as { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
    out.maxFeePerGas = toQuantity(fee.maxFeePerGas);
    out.maxPriorityFeePerGas = toQuantity(fee.maxPriorityFeePerGas);
  }
  if (tx.supports(Capability.EIP2930AccessLists)) {
    out.accessList = (json.accessList ?? []).map((e) => ({
      address: e.address as Hex,
      storageKeys: e.storageKeys as Hex[],
    }));
  }
  if (tx.type !== 0 || tx.supports(Capability.EIP155ReplayProtection))
    out.chainId = toQuantity(tx.common.chainId());
  if (tx.type !== 0) out.yParity = toQuantity(tx.v ?? 0n);
  if (tx instanceof Blob4844Tx) {
    out.maxFeePerBlobGas = toQuantity(tx.maxFeePerBlobGas);
    out.blobVersionedHashes = tx.blobVersionedHashes as Hex[];
  }
  if (tx.type === 4) {
    out.authorizationList = (json.authorizationList ?? []).map((a) => ({
      chainId: normalizeQuantity(a.chainId),
      address: a.address as Hex,
      nonce: normalizeQuantity(a.nonce),
      yParity: normalizeQuantity(a.yParity),
      r: normalizeQuantity(a.r),
      s: normalizeQuantity(a.s),
    }));
  }
  return out;
}

/** The price per gas actually paid: for fee-market transactions `min(maxFee, baseFee + tip)`; pending: `maxFee`. */
export function effectiveGasPrice(tx: TypedTransaction, baseFee: bigint | undefined): bigint {
  if (!tx.supports(Capability.EIP1559FeeMarket)) return (tx as { gasPrice: bigint }).gasPrice;
  const { maxFeePerGas, maxPriorityFeePerGas } = tx as { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
  if (baseFee === undefined) return maxFeePerGas;
  const capped = baseFee + maxPriorityFeePerGas;
  return capped < maxFeePerGas ? capped : maxFeePerGas;
}

/** Re-encodes an unpadded hex field (`0x` for zero) as a strict quantity. */
function normalizeQuantity(value: string): Hex {
  return toQuantity(value === "0x" ? 0n : BigInt(value));
}
