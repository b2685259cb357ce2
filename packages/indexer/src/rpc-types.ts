/** A transaction object as `eth_getBlockByNumber(n, true)` returns it (hex quantities). */
export interface RpcTransaction {
  readonly hash: string;
  readonly blockNumber: string;
  readonly blockHash: string;
  readonly transactionIndex: string;
  readonly from: string;
  readonly to: string | null;
  readonly value: string;
  readonly nonce: string;
  readonly gas: string;
  readonly gasPrice?: string | null;
  readonly maxFeePerGas?: string | null;
  readonly maxPriorityFeePerGas?: string | null;
  readonly type?: string;
  readonly input: string;
}

/** A block with full transaction objects. */
export interface RpcBlock {
  readonly number: string;
  readonly hash: string;
  readonly parentHash: string;
  readonly timestamp: string;
  readonly miner: string;
  readonly gasUsed: string;
  readonly gasLimit: string;
  readonly baseFeePerGas?: string | null;
  readonly size: string;
  readonly transactions: readonly RpcTransaction[];
}

/** An event log inside a receipt. */
export interface RpcLog {
  readonly address: string;
  readonly topics: readonly string[];
  readonly data: string;
  readonly logIndex: string;
  readonly transactionHash: string;
  readonly transactionIndex: string;
}

/** A transaction receipt. */
export interface RpcReceipt {
  readonly transactionHash: string;
  readonly status: string;
  readonly gasUsed: string;
  readonly cumulativeGasUsed: string;
  readonly effectiveGasPrice?: string | null;
  readonly contractAddress: string | null;
  readonly logs: readonly RpcLog[];
}

/** A block as fetched for indexing: header, transactions and their receipts in block order. */
export interface FetchedBlock {
  readonly block: RpcBlock;
  readonly receipts: readonly RpcReceipt[];
}
