/*
 * The rows the indexer writes for one block. Hashes and addresses are lowercase `0x` hex; amounts and
 * block numbers are bigint; small counters are numbers.
 */

/** A block header as stored. */
export interface BlockRow {
  readonly number: bigint;
  readonly hash: string;
  readonly parentHash: string;
  readonly timestamp: bigint;
  readonly miner: string;
  readonly gasUsed: bigint;
  readonly gasLimit: bigint;
  readonly baseFeePerGas: bigint | null;
  readonly transactionCount: number;
  readonly size: bigint;
}

/** A transaction as included in a block. */
export interface TransactionRow {
  readonly hash: string;
  readonly blockNumber: bigint;
  readonly blockHash: string;
  readonly index: number;
  readonly from: string;
  readonly to: string | null;
  readonly value: bigint;
  readonly nonce: bigint;
  readonly gas: bigint;
  readonly gasPrice: bigint | null;
  readonly maxFeePerGas: bigint | null;
  readonly maxPriorityFeePerGas: bigint | null;
  readonly type: number;
  readonly input: string;
}

/** The outcome of one transaction. */
export interface ReceiptRow {
  readonly transactionHash: string;
  readonly blockNumber: bigint;
  /** 1 success, 0 reverted. */
  readonly status: number;
  readonly gasUsed: bigint;
  readonly cumulativeGasUsed: bigint;
  readonly effectiveGasPrice: bigint | null;
  readonly contractAddress: string | null;
  readonly revertReason: string | null;
}

/** An event log. */
export interface LogRow {
  readonly blockNumber: bigint;
  readonly logIndex: number;
  readonly transactionHash: string;
  readonly transactionIndex: number;
  readonly address: string;
  readonly topics: readonly string[];
  readonly data: string;
}

/** A contract created by a transaction of the block. */
export interface ContractRow {
  readonly address: string;
  readonly creator: string;
  readonly creationTransaction: string;
  readonly blockNumber: bigint;
}

/** An ERC-20 token first seen in the block, with the metadata its contract answered. */
export interface TokenRow {
  readonly address: string;
  readonly name: string | null;
  readonly symbol: string | null;
  readonly decimals: number | null;
  readonly totalSupply: bigint | null;
  readonly blockNumber: bigint;
}

/** A decoded ERC-20 `Transfer(from, to, value)` event. */
export interface TokenTransferRow {
  readonly blockNumber: bigint;
  readonly logIndex: number;
  readonly transactionHash: string;
  readonly token: string;
  readonly from: string;
  readonly to: string;
  readonly value: bigint;
}

/** One validator's figures at an epoch (from `svc_getValidators`). */
export interface ValidatorSnapshotRow {
  readonly epoch: bigint;
  readonly address: string;
  readonly blockNumber: bigint;
  readonly stake: string;
  readonly selfStake: string | null;
  readonly delegatedStake: string | null;
  readonly commission: string | null;
  readonly uptime: string | null;
  readonly status: string | null;
  readonly blocksProposed: bigint | null;
  readonly blocksMissed: bigint | null;
  readonly jailed: boolean | null;
}

/** One oracle price: `price` a decimal string, `observedAt` unix seconds of the report. */
export interface OraclePriceRow {
  readonly asset: string;
  readonly observedAt: bigint;
  readonly price: string;
  readonly roundId: bigint;
  readonly blockNumber: bigint;
}

/** Everything the indexer stores for one block, written in one SQL transaction. */
export interface IndexedBlock {
  readonly block: BlockRow;
  readonly transactions: readonly TransactionRow[];
  readonly receipts: readonly ReceiptRow[];
  readonly logs: readonly LogRow[];
  /** Every address the block touched (senders, recipients, created contracts, log emitters). */
  readonly addresses: readonly string[];
  readonly contracts: readonly ContractRow[];
  readonly tokens: readonly TokenRow[];
  readonly tokenTransfers: readonly TokenTransferRow[];
  readonly validatorSnapshots: readonly ValidatorSnapshotRow[];
  readonly oraclePrices: readonly OraclePriceRow[];
}

/** The indexer's progress: the last block it committed (`-1n` before genesis). */
export interface IndexerState {
  readonly blockNumber: bigint;
  readonly blockHash: string | null;
  readonly chainId: bigint;
  readonly updatedAt: Date;
}
