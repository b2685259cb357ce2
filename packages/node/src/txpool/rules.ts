import { Capability, type TypedTransaction } from "@ethereumjs/tx";
import { InvalidTransactionError, TxPoolError } from "../errors/domain-errors.js";
import { maxFee } from "./fees.js";

/** The chain facts the stateless admission rules need. */
export interface AdmissionContext {
  readonly blockGasLimit: bigint;
  /** Base fee of the next block. */
  readonly baseFee: bigint;
  /** Largest accepted `gas * price` in wei; 0 disables the check. */
  readonly txFeeCap: bigint;
}

const TX_BASE_GAS = 21_000n;
const FLOOR_COST_PER_TOKEN = 10n;

/** Checks the rules that do not depend on account state, with geth's messages. */
export function checkStatelessRules(tx: TypedTransaction, context: AdmissionContext): void {
  const feePerGas = maxFee(tx);
  if (context.txFeeCap > 0n && tx.gasLimit * feePerGas > context.txFeeCap) {
    throw new InvalidTransactionError(
      `tx fee (${formatEther(tx.gasLimit * feePerGas)} ether) exceeds the configured cap (${formatEther(context.txFeeCap)} ether)`,
    );
  }
  if (tx.gasLimit > context.blockGasLimit) throw new TxPoolError("exceeds block gas limit");
  const intrinsic = tx.getIntrinsicGas();
  if (tx.gasLimit < intrinsic)
    throw new TxPoolError(`intrinsic gas too low: gas ${tx.gasLimit}, minimum needed ${intrinsic}`);
  const floor = floorDataGas(tx.data);
  if (tx.gasLimit < floor) {
    throw new TxPoolError(
      `insufficient gas for floor data gas cost: gas ${tx.gasLimit}, minimum needed ${floor}`,
    );
  }
  if (tx.supports(Capability.EIP1559FeeMarket)) {
    const { maxFeePerGas, maxPriorityFeePerGas } = tx as {
      maxFeePerGas: bigint;
      maxPriorityFeePerGas: bigint;
    };
    if (maxPriorityFeePerGas > maxFeePerGas)
      throw new TxPoolError("max priority fee per gas higher than max fee per gas");
  }
  if (feePerGas < context.baseFee) {
    throw new TxPoolError(
      `max fee per gas less than block base fee: maxFeePerGas: ${feePerGas}, baseFee: ${context.baseFee}`,
    );
  }
}

/** EIP-7623 floor: 21000 + 10 per calldata token (a zero byte is 1 token, any other byte 4). */
export function floorDataGas(data: Uint8Array): bigint {
  let tokens = 0n;
  for (const byte of data) tokens += byte === 0 ? 1n : 4n;
  return TX_BASE_GAS + tokens * FLOOR_COST_PER_TOKEN;
}

/** Formats wei as ether with two decimals, as geth's fee-cap message does. */
export function formatEther(wei: bigint): string {
  const cents = (wei * 100n) / 10n ** 18n;
  return `${cents / 100n}.${(cents % 100n).toString().padStart(2, "0")}`;
}
