import { isMethodNotFound, type RpcClient } from "./rpc-client.js";
import type { FetchedBlock, RpcBlock, RpcReceipt } from "./rpc-types.js";

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
        const answers = await this.#rpc.batch<unknown>(
          numbers.flatMap((n) => [
            { method: "eth_getBlockByNumber", params: [hex(n), true] },
            { method: "eth_getBlockReceipts", params: [hex(n)] },
          ]),
        );
        return numbers.map((n, i) => {
          const block = answers[2 * i] as RpcBlock | null;
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
    const blocks = await this.#rpc.batch<RpcBlock | null>(
      numbers.map((n) => ({ method: "eth_getBlockByNumber", params: [hex(n), true] })),
    );
    const fetched: FetchedBlock[] = [];
    for (const [i, block] of blocks.entries()) {
      if (block === null) throw new BlockUnavailableError(numbers[i]!);
      const receipts = await this.#rpc.batch<RpcReceipt | null>(
        block.transactions.map((t) => ({ method: "eth_getTransactionReceipt", params: [t.hash] })),
      );
      if (receipts.some((r) => r === null)) throw new BlockUnavailableError(numbers[i]!);
      fetched.push({ block, receipts: receipts as RpcReceipt[] });
    }
    return fetched;
  }
}
