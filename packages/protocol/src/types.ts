import type { Hex } from "./hex.js";

/** A log as returned by `eth_getLogs` and inside receipts (execution-apis `Log`). */
export interface RpcLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
  blockNumber: Hex;
  transactionHash: Hex;
  transactionIndex: Hex;
  blockHash: Hex;
  blockTimestamp: Hex;
  logIndex: Hex;
  removed: boolean;
}

/** An EIP-2930 access list entry on the wire. */
export interface RpcAccessListEntry {
  address: Hex;
  storageKeys: Hex[];
}

/** An EIP-7702 authorization on the wire. */
export interface RpcAuthorization {
  chainId: Hex;
  address: Hex;
  nonce: Hex;
  yParity: Hex;
  r: Hex;
  s: Hex;
}

/** A transaction as returned by `eth_getTransactionByHash` (execution-apis `TransactionInfo`). */
export interface RpcTransaction {
  blockHash: Hex | null;
  blockNumber: Hex | null;
  blockTimestamp?: Hex | null;
  from: Hex;
  gas: Hex;
  gasPrice: Hex;
  maxFeePerGas?: Hex;
  maxPriorityFeePerGas?: Hex;
  hash: Hex;
  input: Hex;
  nonce: Hex;
  to: Hex | null;
  transactionIndex: Hex | null;
  value: Hex;
  type: Hex;
  accessList?: RpcAccessListEntry[];
  chainId?: Hex;
  authorizationList?: RpcAuthorization[];
  /** Blob transactions (type 3): the most the sender pays per unit of blob gas. */
  maxFeePerBlobGas?: Hex;
  /** Blob transactions (type 3): the versioned hashes of the blobs' KZG commitments. */
  blobVersionedHashes?: Hex[];
  v: Hex;
  r: Hex;
  s: Hex;
  yParity?: Hex;
}

/** A receipt as returned by `eth_getTransactionReceipt` (execution-apis `ReceiptInfo`). */
export interface RpcReceipt {
  type: Hex;
  transactionHash: Hex;
  transactionIndex: Hex;
  blockHash: Hex;
  blockNumber: Hex;
  from: Hex;
  to: Hex | null;
  cumulativeGasUsed: Hex;
  gasUsed: Hex;
  contractAddress: Hex | null;
  logs: RpcLog[];
  logsBloom: Hex;
  /** 1 success, 0 failure; receipts from before Byzantium carry `root` instead. */
  status?: Hex;
  /** Receipts from before Byzantium: the state root after the transaction. */
  root?: Hex;
  effectiveGasPrice: Hex;
  /** Blob transactions: blob gas used and the blob base fee of their block. */
  blobGasUsed?: Hex;
  blobGasPrice?: Hex;
}

/** A block header as returned inside blocks and by the `newHeads` subscription. */
export interface RpcHeader {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  nonce: Hex;
  mixHash: Hex;
  sha3Uncles: Hex;
  logsBloom: Hex;
  transactionsRoot: Hex;
  stateRoot: Hex;
  receiptsRoot: Hex;
  miner: Hex;
  difficulty: Hex;
  extraData: Hex;
  gasLimit: Hex;
  gasUsed: Hex;
  timestamp: Hex;
  baseFeePerGas?: Hex;
  withdrawalsRoot?: Hex;
  blobGasUsed?: Hex;
  excessBlobGas?: Hex;
  parentBeaconBlockRoot?: Hex;
  requestsHash?: Hex;
}

/** A block as returned by `eth_getBlockByNumber` / `eth_getBlockByHash`. */
export interface RpcBlock extends RpcHeader {
  size: Hex;
  uncles: Hex[];
  transactions: Hex[] | RpcTransaction[];
  withdrawals?: { index: Hex; validatorIndex: Hex; address: Hex; amount: Hex }[];
}
