import { createTx, type TypedTransaction } from "@ethereumjs/tx";
import { TxPoolError } from "../../../errors/domain-errors.js";
import { decodeRawTransaction } from "../../../txpool/decode.js";
import { formatReceipt } from "../../format/receipt.js";
import { formatTransaction } from "../../format/transaction.js";
import { defineMethods } from "../../registry.js";
import type { RpcServices } from "../../services.js";
import { impersonatedTransaction } from "../dev.js";

function locate(services: RpcServices, hash: string) {
  const store = services.chain.store;
  const location = store.txLocation(Buffer.from(hash.slice(2), "hex"));
  if (!location) return undefined;
  const block = services.chain.blockByHash(location.blockHash);
  const receipts = block ? store.receipts(location.blockHash) : undefined;
  return block && receipts ? { block, receipts, index: location.index } : undefined;
}

async function submit(services: RpcServices, raw: Uint8Array): Promise<string> {
  const tx = await decodeRawTransaction(
    raw,
    services.chain.common,
    services.config.rpc.maxTxBytes,
    services.senderRecovery,
  );
  return submitDecoded(services, tx);
}

async function submitDecoded(services: RpcServices, tx: TypedTransaction): Promise<string> {
  const pooled = await services.pool.add(tx);
  // Automine with an idle producer: the transaction is mined before the answer, so the receipt is
  // there when the client first asks. Under a stream of transactions blocks are batched instead.
  await services.producer.upcomingBlock();
  return pooled.hash;
}

/** Transaction lookup, receipts and submission. */
export const transactionMethods = defineMethods({
  eth_getTransactionByHash: ([hash], services) => {
    const mined = locate(services, hash);
    if (mined) {
      const { block, receipts, index } = mined;
      return formatTransaction(block.transactions[index]!, receipts[index]!.sender, { block, index });
    }
    const pooled = services.pool.get(hash);
    return pooled ? formatTransaction(pooled.tx, pooled.senderAddress.bytes) : null;
  },
  eth_getTransactionReceipt: ([hash], services) => {
    const mined = locate(services, hash);
    return mined ? formatReceipt(mined.block, mined.receipts, mined.index) : null;
  },
  // A follower passes transactions on to the node that produces blocks.
  eth_sendRawTransaction: ([raw], services) =>
    services.forwarder
      ? services.forwarder.sendRawTransaction(raw)
      : submit(services, Buffer.from(raw.slice(2), "hex")),
  eth_sendTransaction: async ([request], services) => {
    const from = request.from;
    const key = from ? services.devAccounts.get(from) : undefined;
    const impersonated = from !== undefined && services.impersonated.has(from.toLowerCase());
    if (!from || (!key && !impersonated)) throw new TxPoolError("unknown account");
    const data = await services.filler.fill(request);
    if (!key) return submitDecoded(services, impersonatedTransaction(data, from, services));
    const signed = createTx(data, { common: services.chain.common }).sign(key);
    return submit(services, signed.serialize());
  },
});
