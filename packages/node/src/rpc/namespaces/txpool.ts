import { Capability } from "@ethereumjs/tx";
import { toChecksumAddress } from "@ethereumjs/util";
import { type RpcTransaction, toQuantity } from "@strata/protocol";
import type { PoolTx } from "../../txpool/tx-pool.js";
import { formatTransaction } from "../format/transaction.js";
import { defineMethods } from "../registry.js";

/** Pool transactions keyed as geth does: sender (EIP-55 checksummed) -> nonce (decimal) -> value. */
type BySender<T> = Record<string, Record<string, T>>;

function bySender<T>(txs: readonly PoolTx[], render: (tx: PoolTx) => T): BySender<T> {
  const out: BySender<T> = {};
  for (const poolTx of txs) {
    const sender = toChecksumAddress(poolTx.sender);
    out[sender] ??= {};
    out[sender][poolTx.nonce.toString()] = render(poolTx);
  }
  return out;
}

function byNonce<T>(txs: readonly PoolTx[], render: (tx: PoolTx) => T): Record<string, T> {
  const out: Record<string, T> = {};
  for (const poolTx of txs) out[poolTx.nonce.toString()] = render(poolTx);
  return out;
}

/** A pool transaction as geth's `RPCTransaction` of a pending transaction (inclusion fields null). */
function pendingTransaction(poolTx: PoolTx): RpcTransaction {
  return formatTransaction(poolTx.tx, poolTx.senderAddress.bytes);
}

/** The price geth prints in `txpool_inspect`: the gas price, or the fee cap of fee-market transactions. */
function quotedGasPrice(poolTx: PoolTx): bigint {
  const { tx } = poolTx;
  if (tx.supports(Capability.EIP1559FeeMarket)) return (tx as { maxFeePerGas: bigint }).maxFeePerGas;
  return (tx as { gasPrice: bigint }).gasPrice;
}

/** geth's one-line summary: `<to>: <value> wei + <gas> gas × <price> wei`. */
function summary(poolTx: PoolTx): string {
  const { tx } = poolTx;
  const target = tx.to ? toChecksumAddress(tx.to.toString()) : "contract creation";
  return `${target}: ${tx.value} wei + ${tx.gasLimit} gas × ${quotedGasPrice(poolTx)} wei`;
}

/**
 * The `txpool_` namespace as geth serves it: `pending` holds transactions executable now (each
 * sender's run of consecutive nonces from its state nonce), `queued` those behind a nonce gap.
 */
export const txpoolMethods = defineMethods({
  txpool_status: (_, { pool }) => ({
    pending: toQuantity(pool.pendingCount),
    queued: toQuantity(pool.queuedCount),
  }),
  txpool_content: (_, services) => {
    const { pending, queued } = services.pool.content();
    return { pending: bySender(pending, pendingTransaction), queued: bySender(queued, pendingTransaction) };
  },
  txpool_contentFrom: ([address], services) => {
    const { pending, queued } = services.pool.content();
    const from = (txs: PoolTx[]) => txs.filter((poolTx) => poolTx.sender === address);
    return {
      pending: byNonce(from(pending), pendingTransaction),
      queued: byNonce(from(queued), pendingTransaction),
    };
  },
  txpool_inspect: (_, services) => {
    const { pending, queued } = services.pool.content();
    return { pending: bySender(pending, summary), queued: bySender(queued, summary) };
  },
});
