import { createTx, type TypedTransaction, type TypedTxData } from "@ethereumjs/tx";
import { type CallRequest, type Hex, toQuantity } from "@strata/protocol";
import type { Chain } from "../chain/chain.js";
import { ExecutionError } from "../errors/domain-errors.js";
import type { CallExecutor } from "../execution/call/call-executor.js";
import type { FeeOracle } from "../fees/fee-oracle.js";
import type { PendingBlocks } from "../producer/pending-block.js";
import type { TxPool } from "../txpool/tx-pool.js";

const ZERO_ADDRESS = `0x${"00".repeat(20)}` as Hex;

/** What filling a transaction reads: the chain, the pool's nonces, gas estimates and fee suggestions. */
export interface TransactionFillerDeps {
  readonly chain: Chain;
  readonly pool: TxPool;
  readonly calls: CallExecutor;
  /** The block the transaction would land in, where its gas is estimated. */
  readonly pending: PendingBlocks;
  readonly fees: FeeOracle;
}

/**
 * Turns a transaction request into a complete transaction as geth's `setDefaults` and
 * `ToTransaction` do, for `eth_sendTransaction`, `eth_signTransaction` and `eth_fillTransaction`:
 * - a `chainId` other than the network's is refused; a creation needs data and a set-code
 *   transaction a recipient;
 * - the type: legacy (0) when `gasPrice` is given (an access list is then dropped, as geth does),
 *   else set-code (4) with an `authorizationList`, else EIP-1559 (2);
 * - fees: the tip defaults to the fee oracle's suggestion, `maxFeePerGas` to the tip plus twice the
 *   head's base fee, and a `maxFeePerGas` below the tip is refused;
 * - the nonce defaults to the sender's next one, counting its pending transactions;
 * - gas defaults to an estimate in the pending block, with the filled fees and nonce.
 */
export class TransactionFiller {
  constructor(private readonly deps: TransactionFillerDeps) {}

  /** The transaction data of `request`, every default filled in and checked. */
  async fill(request: CallRequest): Promise<TypedTxData> {
    const { chain, pool, calls, pending, fees } = this.deps;
    const chainId = chain.common.chainId();
    if (request.chainId !== undefined && request.chainId !== chainId) {
      throw new ExecutionError(`chainId does not match node's (have=${request.chainId}, want=${chainId})`);
    }
    const input = request.input ?? request.data ?? "0x";
    if (!request.to && request.authorizationList) {
      throw new ExecutionError('missing "to" in set code transaction');
    }
    if (!request.to && input === "0x")
      throw new ExecutionError("contract creation without any data provided");
    const from = request.from ?? ZERO_ADDRESS;
    const head = chain.head;
    const gasPrice = request.gasPrice;
    const tip = request.maxPriorityFeePerGas ?? fees.suggestedTip();
    const maxFeePerGas = request.maxFeePerGas ?? tip + 2n * (head.header.baseFeePerGas ?? 0n);
    if (gasPrice === undefined && maxFeePerGas < tip) {
      throw new ExecutionError(`maxFeePerGas (${maxFeePerGas}) < maxPriorityFeePerGas (${tip})`);
    }
    const feeFields = gasPrice !== undefined ? { gasPrice } : { maxFeePerGas, maxPriorityFeePerGas: tip };
    const nonce = request.nonce ?? pool.pendingNonce(from, (await chain.account(head, from))?.nonce ?? 0n);
    const gasLimit =
      request.gas ??
      (await calls.estimateGas({ ...request, ...feeFields, nonce }, await pending.callBlock()));
    const base = {
      nonce,
      gasLimit,
      value: request.value ?? 0n,
      data: input,
      ...(request.to ? { to: request.to } : {}),
    };
    if (gasPrice !== undefined) return { ...base, type: 0, gasPrice };
    const dynamic = {
      ...base,
      maxFeePerGas,
      maxPriorityFeePerGas: tip,
      accessList: request.accessList ?? [],
    };
    if (!request.authorizationList) return { ...dynamic, type: 2 };
    return {
      ...dynamic,
      type: 4,
      authorizationList: request.authorizationList.map((a) => ({
        chainId: toQuantity(a.chainId),
        address: a.address,
        nonce: toQuantity(a.nonce),
        yParity: toQuantity(a.yParity),
        r: toQuantity(a.r),
        s: toQuantity(a.s),
      })),
    } as TypedTxData;
  }

  /** The unsigned transaction of `request` (see {@link fill}). */
  async unsigned(request: CallRequest): Promise<TypedTransaction> {
    return createTx(await this.fill(request), { common: this.deps.chain.common });
  }

  /**
   * Refuses a request to sign that leaves gas, fees or the nonce to the node (geth's
   * `eth_signTransaction`: what is signed must not depend on the node's state).
   */
  requireSigningFields(request: CallRequest): void {
    if (request.gas === undefined) throw new ExecutionError("gas not specified");
    if (
      request.gasPrice === undefined &&
      (request.maxPriorityFeePerGas === undefined || request.maxFeePerGas === undefined)
    ) {
      throw new ExecutionError("missing gasPrice or maxFeePerGas/maxPriorityFeePerGas");
    }
    if (request.nonce === undefined) throw new ExecutionError("nonce not specified");
  }
}
