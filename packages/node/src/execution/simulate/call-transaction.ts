import type { Common } from "@ethereumjs/common";
import { createTx, type TypedTransaction, type TypedTxData } from "@ethereumjs/tx";
import type { Address } from "@ethereumjs/util";
import type { CallRequest } from "@strata/protocol";
import { keccak256 } from "../../crypto/keccak.js";
import { ExecutionError } from "../../errors/domain-errors.js";

const toHex = (n: bigint) => `0x${n.toString(16)}` as const;

/** The largest nonce (2^64 - 1): an account that has it cannot send another transaction (EIP-2681). */
export const MAX_NONCE = 2n ** 64n - 1n;

/**
 * The unsigned transaction of a simulated call, typed as geth's `ToTransaction(DynamicFeeTx)`
 * types it: a set-code transaction when it authorizes, a blob transaction when it names blob hashes,
 * legacy when it names a gas price, otherwise EIP-1559 (fees default to zero). It reports `from` as
 * its sender, and its hash is the hash of its unsigned encoding (zero signature), as geth's.
 */
export function callTransaction(
  request: CallRequest,
  defaults: { nonce: bigint; gasLimit: bigint },
  from: Address,
  common: Common,
): TypedTransaction {
  const base = {
    nonce: request.nonce ?? defaults.nonce,
    gasLimit: defaults.gasLimit,
    ...(request.to ? { to: request.to } : {}),
    value: request.value ?? 0n,
    data: request.input ?? request.data ?? "0x",
  };
  const fees = {
    maxFeePerGas: request.maxFeePerGas ?? 0n,
    maxPriorityFeePerGas: request.maxPriorityFeePerGas ?? 0n,
  };
  let data: TypedTxData;
  if (request.authorizationList !== undefined) {
    data = {
      ...base,
      ...fees,
      type: 4,
      accessList: request.accessList ?? [],
      authorizationList: request.authorizationList.map((a) => ({
        chainId: toHex(a.chainId),
        address: a.address,
        nonce: toHex(a.nonce),
        yParity: toHex(a.yParity),
        r: toHex(a.r),
        s: toHex(a.s),
      })),
    } as TypedTxData;
  } else if (request.blobVersionedHashes !== undefined) {
    data = {
      ...base,
      ...fees,
      type: 3,
      accessList: request.accessList ?? [],
      maxFeePerBlobGas: request.maxFeePerBlobGas ?? 0n,
      blobVersionedHashes: request.blobVersionedHashes,
    } as TypedTxData;
  } else if (request.gasPrice !== undefined) {
    data = { ...base, type: 0, gasPrice: request.gasPrice };
  } else {
    data = { ...base, ...fees, type: 2, accessList: request.accessList ?? [] };
  }
  if (fees.maxPriorityFeePerGas > fees.maxFeePerGas && request.gasPrice === undefined) {
    throw new ExecutionError(
      `maxFeePerGas (${fees.maxFeePerGas}) < maxPriorityFeePerGas (${fees.maxPriorityFeePerGas})`,
    );
  }
  // Simulated calls are not held to EIP-7825's per-transaction gas cap nor EIP-2681's nonce limit
  // (geth skips transaction checks for them), but the transaction constructor enforces both: build
  // within them, then give the transaction its real gas limit and nonce.
  const cap = common.isActivatedEIP(7825) ? common.param("maxTransactionGasLimit") : undefined;
  const tx = createTx(
    {
      ...data,
      ...(cap !== undefined && base.gasLimit > cap ? { gasLimit: cap } : {}),
      ...(base.nonce >= MAX_NONCE ? { nonce: 0n } : {}),
    },
    { common, freeze: false },
  );
  (tx as { gasLimit: bigint }).gasLimit = base.gasLimit;
  (tx as { nonce: bigint }).nonce = base.nonce;
  const hash = keccak256(tx.serialize());
  tx.getSenderAddress = () => from;
  tx.hash = () => hash;
  return tx;
}
