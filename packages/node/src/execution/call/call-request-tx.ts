import type { Common } from "@ethereumjs/common";
import { createTx, type TypedTransaction, type TypedTxData } from "@ethereumjs/tx";
import { Address, createZeroAddress, hexToBytes } from "@ethereumjs/util";
import type { CallRequest } from "@strata/protocol";

/**
 * The unsigned transaction a call request (`eth_call`, `eth_estimateGas`, `debug_traceCall`) runs
 * as: typed after the fields it names (7702 with an authorization list, 1559 with fee caps, 2930
 * with an access list, legacy otherwise), sent by its `from` (the zero address by default); without
 * `maxFeePerGas` a 1559 call pays `baseFee` plus its tip.
 */
export function callRequestTransaction(
  request: CallRequest,
  gasLimit: bigint,
  common: Common,
  baseFee: bigint,
): TypedTransaction {
  const from = request.from ? new Address(hexToBytes(request.from)) : createZeroAddress();
  const input = request.input ?? request.data ?? "0x";
  const base = {
    nonce: request.nonce ?? 0n,
    gasLimit,
    ...(request.to ? { to: request.to } : {}),
    value: request.value ?? 0n,
    data: input,
  };
  let data: TypedTxData;
  if (request.authorizationList?.length) {
    data = {
      ...base,
      type: 4,
      maxFeePerGas: request.maxFeePerGas ?? 0n,
      maxPriorityFeePerGas: request.maxPriorityFeePerGas ?? 0n,
      accessList: request.accessList ?? [],
      authorizationList: request.authorizationList.map((a) => ({
        chainId: `0x${a.chainId.toString(16)}`,
        address: a.address,
        nonce: `0x${a.nonce.toString(16)}`,
        yParity: `0x${a.yParity.toString(16)}`,
        r: `0x${a.r.toString(16)}`,
        s: `0x${a.s.toString(16)}`,
      })),
    } as TypedTxData;
  } else if (request.maxFeePerGas !== undefined || request.maxPriorityFeePerGas !== undefined) {
    const maxFeePerGas = request.maxFeePerGas ?? baseFee + (request.maxPriorityFeePerGas ?? 0n);
    data = {
      ...base,
      type: 2,
      maxFeePerGas,
      maxPriorityFeePerGas: request.maxPriorityFeePerGas ?? 0n,
      accessList: request.accessList ?? [],
    };
  } else if (request.accessList !== undefined) {
    data = { ...base, type: 1, gasPrice: request.gasPrice ?? 0n, accessList: request.accessList };
  } else {
    data = { ...base, type: 0, gasPrice: request.gasPrice ?? 0n };
  }
  const tx = createTx(data, { common, freeze: false });
  tx.getSenderAddress = () => from;
  // @ethereumjs keeps a transaction's data fee (a loop over every calldata byte, asked several times
  // per run) only once the transaction is frozen, and this one is not: an estimate makes one per
  // attempt, differing in gas limit alone, so the fee is worked out once per request and rules.
  const hardfork = common.hardfork();
  let dataFee = dataFees.get(request);
  if (dataFee?.hardfork !== hardfork) {
    dataFee = { value: tx.getDataGas(), hardfork };
    dataFees.set(request, dataFee);
  }
  (tx as unknown as { cache: { dataFee?: DataFee } }).cache.dataFee = dataFee;
  return tx;
}

/** A transaction's data fee under the rules of one hardfork, as @ethereumjs caches it. */
interface DataFee {
  readonly value: bigint;
  readonly hardfork: string;
}

/** The data fee of each call request, while the request object lives. */
const dataFees = new WeakMap<CallRequest, DataFee>();
