import { z } from "zod";
import { HexText } from "./hex-text.js";

/** A log as returned by `eth_getLogs` and inside receipts (execution-apis `Log`). */
export const RpcLog = z.object({
  address: HexText,
  topics: z.array(HexText),
  data: HexText,
  blockNumber: HexText,
  transactionHash: HexText,
  transactionIndex: HexText,
  blockHash: HexText,
  blockTimestamp: HexText,
  logIndex: HexText,
  removed: z.boolean(),
});
/** A log on the wire. */
export type RpcLog = z.infer<typeof RpcLog>;

/** An EIP-2930 access list entry on the wire. */
export const RpcAccessListEntry = z.object({ address: HexText, storageKeys: z.array(HexText) });
/** An access list entry on the wire. */
export type RpcAccessListEntry = z.infer<typeof RpcAccessListEntry>;

/** An EIP-7702 authorization on the wire. */
export const RpcAuthorization = z.object({
  chainId: HexText,
  address: HexText,
  nonce: HexText,
  yParity: HexText,
  r: HexText,
  s: HexText,
});
/** An authorization on the wire. */
export type RpcAuthorization = z.infer<typeof RpcAuthorization>;

/** A transaction as returned by `eth_getTransactionByHash` (execution-apis `TransactionInfo`). */
export const RpcTransaction = z.object({
  blockHash: HexText.nullable(),
  blockNumber: HexText.nullable(),
  blockTimestamp: HexText.nullable().optional(),
  from: HexText,
  gas: HexText,
  gasPrice: HexText,
  maxFeePerGas: HexText.optional(),
  maxPriorityFeePerGas: HexText.optional(),
  hash: HexText,
  input: HexText,
  nonce: HexText,
  to: HexText.nullable(),
  transactionIndex: HexText.nullable(),
  value: HexText,
  type: HexText,
  accessList: z.array(RpcAccessListEntry).optional(),
  chainId: HexText.optional(),
  authorizationList: z.array(RpcAuthorization).optional(),
  /** Blob transactions (type 3): the most the sender pays per unit of blob gas. */
  maxFeePerBlobGas: HexText.optional(),
  /** Blob transactions (type 3): the versioned hashes of the blobs' KZG commitments. */
  blobVersionedHashes: z.array(HexText).optional(),
  v: HexText,
  r: HexText,
  s: HexText,
  yParity: HexText.optional(),
});
/** A transaction on the wire. */
export type RpcTransaction = z.infer<typeof RpcTransaction>;

/** A receipt as returned by `eth_getTransactionReceipt` (execution-apis `ReceiptInfo`). */
export const RpcReceipt = z.object({
  type: HexText,
  transactionHash: HexText,
  transactionIndex: HexText,
  blockHash: HexText,
  blockNumber: HexText,
  from: HexText,
  to: HexText.nullable(),
  cumulativeGasUsed: HexText,
  gasUsed: HexText,
  contractAddress: HexText.nullable(),
  logs: z.array(RpcLog),
  logsBloom: HexText,
  /** 1 success, 0 failure; receipts from before Byzantium carry `root` instead. */
  status: HexText.optional(),
  /** Receipts from before Byzantium: the state root after the transaction. */
  root: HexText.optional(),
  effectiveGasPrice: HexText,
  /** Blob transactions: blob gas used and the blob base fee of their block. */
  blobGasUsed: HexText.optional(),
  blobGasPrice: HexText.optional(),
});
/** A receipt on the wire. */
export type RpcReceipt = z.infer<typeof RpcReceipt>;

/** A block header as returned inside blocks, by `eth_getHeaderBy*` and the `newHeads` subscription. */
export const RpcHeader = z.object({
  number: HexText,
  hash: HexText,
  parentHash: HexText,
  nonce: HexText,
  mixHash: HexText,
  sha3Uncles: HexText,
  logsBloom: HexText,
  transactionsRoot: HexText,
  stateRoot: HexText,
  receiptsRoot: HexText,
  miner: HexText,
  difficulty: HexText,
  extraData: HexText,
  gasLimit: HexText,
  gasUsed: HexText,
  timestamp: HexText,
  baseFeePerGas: HexText.optional(),
  withdrawalsRoot: HexText.optional(),
  blobGasUsed: HexText.optional(),
  excessBlobGas: HexText.optional(),
  parentBeaconBlockRoot: HexText.optional(),
  requestsHash: HexText.optional(),
});
/** A header on the wire. */
export type RpcHeader = z.infer<typeof RpcHeader>;

/** A withdrawal inside a block. */
export const RpcWithdrawal = z.object({
  index: HexText,
  validatorIndex: HexText,
  address: HexText,
  amount: HexText,
});

const blockBody = {
  size: HexText,
  uncles: z.array(HexText),
  withdrawals: z.array(RpcWithdrawal).optional(),
};

/** A block as returned by `eth_getBlockByNumber` / `eth_getBlockByHash`: hashes or full transactions. */
export const RpcBlock = RpcHeader.extend({
  ...blockBody,
  transactions: z.union([z.array(HexText), z.array(RpcTransaction)]),
});
/** A block on the wire. */
export type RpcBlock = z.infer<typeof RpcBlock>;

/** The pending block (`eth_getBlockByNumber("pending")`): not sealed, so without hash, nonce or miner. */
export const RpcPendingBlock = RpcBlock.extend({ hash: z.null(), nonce: z.null(), miner: z.null() });
/** The pending block on the wire. */
export type RpcPendingBlock = z.infer<typeof RpcPendingBlock>;

/** A block with full transaction objects (`eth_getBlockByNumber(n, true)`). */
export const RpcBlockWithTransactions = RpcHeader.extend({
  ...blockBody,
  transactions: z.array(RpcTransaction),
});
/** A block with full transactions on the wire. */
export type RpcBlockWithTransactions = z.infer<typeof RpcBlockWithTransactions>;
