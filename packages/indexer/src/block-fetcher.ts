import { type RpcBlockWithTransactions, type RpcReceipt, rpcRequest } from "@strata/protocol";
import { isMethodNotFound, type RpcClient } from "./rpc-client.js";

/** A block as fetched for indexing: header, transactions and their receipts in block order. */
export interface FetchedBlock {
  readonly block: RpcBlockWithTransactions;
  readonly receipts: readonly RpcReceipt[];
}

/** `eth_getBlockByNumber(n, true)`: the block with full transaction objects. */
const blockWithTransactions = (n: bigint) => rpcRequest("eth_getBlockByNumber", hex(n), true);

const hex = (n: bigint) => `0x${n.toString(16)}`;

/** The node does not have a block the indexer asked for (it is behind, or the chain reorganised). */
export class BlockUnavailableError extends Error {
  constructor(readonly number: bigint) {
    super(`block ${number} is not available on the node`);
    this.name = "BlockUnavailableError";
  }
}

/**
 * Fetches blocks with their receipts in batched JSON-RPC requests: `eth_getBlockByNumber(n, true)`
 * plus `eth_getBlockReceipts(n)`, or one `eth_getTransactionReceipt` per transaction on nodes
 * without `eth_getBlockReceipts`.
 */
export class BlockFetcher {
  readonly #rpc: RpcClient;
  #blockReceipts = true;

  constructor(rpc: RpcClient) {
    this.#rpc = rpc;
  }

  /** Fetches blocks `from .. from + count - 1`, in order; throws {@link BlockUnavailableError} for a missing one. */
  async fetch(from: bigint, count: number): Promise<FetchedBlock[]> {
    const numbers = Array.from({ length: count }, (_, i) => from + BigInt(i));
    if (this.#blockReceipts) {
      try {
        const answers = await this.#rpc.batch(
          numbers.flatMap((n) => [blockWithTransactions(n), rpcRequest("eth_getBlockReceipts", hex(n))]),
        );
        return numbers.map((n, i) => {
          const block = answers[2 * i] as RpcBlockWithTransactions | null;
          const receipts = answers[2 * i + 1] as RpcReceipt[] | null;
          if (block === null || receipts === null) throw new BlockUnavailableError(n);
          if (
            receipts.length !== block.transactions.length ||
            receipts[0]?.transactionHash !== block.transactions[0]?.hash
          )
            throw new BlockUnavailableError(n);
          return { block, receipts };
        });
      } catch (error) {
        if (!isMethodNotFound(error)) throw error;
        this.#blockReceipts = false;
      }
    }
    const blocks = (await this.#rpc.batch(
      numbers.map(blockWithTransactions),
    )) as (RpcBlockWithTransactions | null)[];
    const fetched: FetchedBlock[] = [];
    for (const [i, block] of blocks.entries()) {
      if (block === null) throw new BlockUnavailableError(numbers[i]!);
      const receipts = await this.#rpc.batch(
        block.transactions.map((t) => rpcRequest("eth_getTransactionReceipt", t.hash)),
      );
      if (receipts.some((r) => r === null)) throw new BlockUnavailableError(numbers[i]!);
      fetched.push({ block, receipts: receipts as RpcReceipt[] });
    }
    return fetched;
  }
}
