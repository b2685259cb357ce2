import { z } from "zod";
import {
  RpcBlock,
  RpcHeader,
  RpcLog,
  RpcPendingBlock,
  RpcReceipt,
  RpcTransaction,
} from "../objects/chain.js";
import { HexText } from "../objects/hex-text.js";
import {
  Address,
  BlockNumberOrTag,
  BlockSpec,
  Bool,
  Bytes,
  CallRequest,
  Hash32,
  HexOrDecimal,
  LogFilter,
  Quantity,
  StorageSlot,
} from "../schemas.js";
import { method } from "./define.js";
import { BoolResult, HexOrNull, HexResult, NullResult, OpenResult } from "./results.js";
import { SimulateOptions } from "./simulate-params.js";

/** A filter id as returned by the `eth_new*Filter` methods; any other string is simply not found. */
export const FilterId = z.string({ error: "cannot unmarshal non-string into rpc.ID" });

/** The storage keys of `eth_getProof` (checked one by one by the method: geth's messages name each). */
export const StorageKeys = z.array(z.string({ error: "cannot unmarshal non-string into storage key" }), {
  error: "cannot unmarshal non-array into []string",
});

/** `eth_getStorageValues`' request: slots by account address. */
export const StorageRequests = z.record(z.string(), z.array(Hash32));

/** `eth_feeHistory`'s reward percentiles. */
export const Percentiles = z.array(z.number().min(0).max(100)).max(100);

/** `eth_feeHistory`'s result. */
export const FeeHistory = z.object({
  oldestBlock: HexText,
  baseFeePerGas: z.array(z.string()),
  gasUsedRatio: z.array(z.number()),
  baseFeePerBlobGas: z.array(z.string()),
  blobGasUsedRatio: z.array(z.number()),
  reward: z.array(z.array(z.string())).optional(),
});
/** A fee history on the wire. */
export type FeeHistory = z.infer<typeof FeeHistory>;

/** One kind of history in `eth_capabilities`. */
const HistoryAvailability = z.object({ disabled: z.boolean(), oldestBlock: z.string() });

/** `eth_capabilities`' result: the head and, per kind of data, the oldest block served. */
export const Capabilities = z.object({
  head: z.object({ number: HexText, hash: HexText }),
  state: HistoryAvailability,
  tx: HistoryAvailability,
  logs: HistoryAvailability,
  receipts: HistoryAvailability,
  blocks: HistoryAvailability,
  stateproofs: HistoryAvailability,
});

/** An EIP-1186 storage proof. */
export const StorageProof = z.object({ key: HexText, value: HexText, proof: z.array(HexText) });

/** `eth_getProof`'s result: an account with its Merkle proof and some storage slots with theirs. */
export const AccountProof = z.object({
  address: HexText,
  accountProof: z.array(HexText),
  balance: HexText,
  codeHash: HexText,
  nonce: HexText,
  storageHash: HexText,
  storageProof: z.array(StorageProof),
});
/** An account proof on the wire. */
export type AccountProof = z.infer<typeof AccountProof>;

/** `eth_signTransaction` / `eth_fillTransaction`: the encoded transaction and its fields. */
export const SignedTransaction = z.object({ raw: HexText, tx: z.record(z.string(), z.unknown()) });

/** `eth_createAccessList`'s result. */
export const AccessListResult = z.object({
  accessList: z.array(z.object({ address: z.string(), storageKeys: z.array(z.string()) })),
  gasUsed: HexText,
  error: z.string().optional(),
});

/** What `eth_getFilterChanges` returns: logs, block hashes or pending transactions (hashes or objects). */
export const FilterChanges = z.array(z.union([RpcLog, HexText, RpcTransaction]));

/** The hash of a submitted transaction. */
const TransactionHash = z.string();

/** `eth_syncing`: `false`, or the sync progress. */
export const SyncStatus = z.union([z.literal(false), z.record(z.string(), z.unknown())]);

const blockSpecAnd = <S extends z.ZodType>(first: S) => [first, BlockSpec] as const;

/** The `eth_` namespace of the execution API, plus geth's and the specification's extensions. */
export const ethMethods = {
  eth_chainId: method({ params: [], required: 0, result: HexResult }),
  eth_blockNumber: method({ params: [], required: 0, result: HexResult }),
  eth_syncing: method({ params: [], required: 0, result: SyncStatus }),
  eth_mining: method({ params: [], required: 0, result: BoolResult }),
  eth_hashrate: method({ params: [], required: 0, result: HexResult }),
  eth_coinbase: method({ params: [], required: 0, result: HexResult }),
  eth_accounts: method({ params: [], required: 0, result: z.array(z.string()) }),

  eth_getBalance: method({ params: blockSpecAnd(Address), required: 1, result: HexResult }),
  eth_getTransactionCount: method({ params: blockSpecAnd(Address), required: 1, result: HexResult }),
  eth_getCode: method({ params: blockSpecAnd(Address), required: 1, result: HexResult }),
  eth_getStorageAt: method({ params: [Address, StorageSlot, BlockSpec], required: 2, result: HexResult }),

  eth_getBlockByNumber: method({
    params: [BlockNumberOrTag, Bool],
    required: 1,
    result: z.union([RpcBlock, RpcPendingBlock]).nullable(),
  }),
  eth_getBlockByHash: method({ params: [Hash32, Bool], required: 1, result: RpcBlock.nullable() }),
  eth_getBlockTransactionCountByNumber: method({
    params: [BlockNumberOrTag],
    required: 1,
    result: HexOrNull,
  }),
  eth_getBlockTransactionCountByHash: method({ params: [Hash32], required: 1, result: HexOrNull }),
  eth_getTransactionByBlockNumberAndIndex: method({
    params: [BlockNumberOrTag, Quantity],
    required: 2,
    result: RpcTransaction.nullable(),
  }),
  eth_getTransactionByBlockHashAndIndex: method({
    params: [Hash32, Quantity],
    required: 2,
    result: RpcTransaction.nullable(),
  }),
  eth_getBlockReceipts: method({ params: [BlockSpec], required: 1, result: z.array(RpcReceipt).nullable() }),
  eth_getUncleCountByBlockNumber: method({ params: [BlockNumberOrTag], required: 1, result: HexOrNull }),
  eth_getUncleCountByBlockHash: method({ params: [Hash32], required: 1, result: HexOrNull }),
  eth_getUncleByBlockNumberAndIndex: method({
    params: [BlockNumberOrTag, Quantity],
    required: 2,
    result: NullResult,
  }),
  eth_getUncleByBlockHashAndIndex: method({ params: [Hash32, Quantity], required: 2, result: NullResult }),
  eth_getHeaderByNumber: method({
    params: [BlockNumberOrTag],
    required: 1,
    result: RpcHeader.nullable(),
    summary: "Returns the header of a canonical block by number or tag.",
  }),
  eth_getHeaderByHash: method({
    params: [Hash32],
    required: 1,
    result: RpcHeader.nullable(),
    summary: "Returns the header of a block by hash.",
  }),
  eth_getBlockAccessList: method({
    params: [BlockSpec],
    required: 1,
    result: NullResult,
    summary: "Returns the EIP-7928 block access list of a block (none are kept: -32001 for existing blocks).",
  }),

  eth_getTransactionByHash: method({ params: [Hash32], required: 1, result: RpcTransaction.nullable() }),
  eth_getTransactionReceipt: method({ params: [Hash32], required: 1, result: RpcReceipt.nullable() }),
  eth_sendRawTransaction: method({ params: [Bytes], required: 1, result: TransactionHash }),
  eth_sendTransaction: method({ params: [CallRequest], required: 1, result: TransactionHash }),

  eth_call: method({ params: blockSpecAnd(CallRequest), required: 1, result: HexResult }),
  eth_estimateGas: method({ params: blockSpecAnd(CallRequest), required: 1, result: HexResult }),
  eth_createAccessList: method({ params: blockSpecAnd(CallRequest), required: 1, result: AccessListResult }),
  eth_simulateV1: method({
    params: [SimulateOptions, BlockSpec],
    required: 1,
    result: OpenResult,
    summary: "Executes calls in simulated blocks on top of a block, with block and state overrides.",
  }),

  eth_gasPrice: method({ params: [], required: 0, result: HexResult }),
  eth_maxPriorityFeePerGas: method({ params: [], required: 0, result: HexResult }),
  eth_blobBaseFee: method({ params: [], required: 0, result: HexResult }),
  eth_feeHistory: method({
    params: [HexOrDecimal, BlockNumberOrTag, Percentiles],
    required: 2,
    result: FeeHistory,
  }),
  eth_baseFee: method({
    params: [],
    required: 0,
    result: HexOrNull,
    summary: "Returns the base fee per gas of the next block, or null before London.",
  }),
  eth_config: method({
    params: [],
    required: 0,
    result: OpenResult,
    summary:
      "Returns the fork configuration in force, the next scheduled fork's, and the last one's (EIP-7910).",
  }),
  eth_capabilities: method({
    params: [],
    required: 0,
    result: Capabilities,
    summary: "Returns the head and, per kind of data, the oldest block this node can serve.",
  }),

  eth_getLogs: method({ params: [LogFilter], required: 1, result: z.array(RpcLog) }),
  eth_newFilter: method({ params: [LogFilter], required: 1, result: z.string() }),
  eth_newBlockFilter: method({ params: [], required: 0, result: z.string() }),
  eth_newPendingTransactionFilter: method({ params: [Bool], required: 0, result: z.string() }),
  eth_getFilterChanges: method({ params: [FilterId], required: 1, result: FilterChanges }),
  eth_getFilterLogs: method({ params: [FilterId], required: 1, result: z.array(RpcLog) }),
  eth_uninstallFilter: method({ params: [FilterId], required: 1, result: BoolResult }),
  eth_subscribe: method({ params: [z.string(), z.unknown()], required: 1, result: z.string() }),
  eth_unsubscribe: method({ params: [z.string()], required: 1, result: BoolResult }),

  eth_getProof: method({
    params: [Address, StorageKeys, BlockSpec],
    required: 2,
    result: AccountProof,
    summary: "Returns an account and some of its storage slots with their Merkle proofs (EIP-1186).",
  }),
  eth_getStorageValues: method({
    params: [StorageRequests, BlockSpec],
    required: 1,
    result: z.record(z.string(), z.array(z.string())),
    summary: "Returns the values of several storage slots of several accounts.",
  }),

  eth_sign: method({
    params: [Address, Bytes],
    required: 2,
    result: HexResult,
    summary: "Signs an EIP-191 personal message with an unlocked account (V is 27 or 28).",
  }),
  eth_signTransaction: method({
    params: [CallRequest],
    required: 1,
    result: SignedTransaction,
    summary:
      "Signs a transaction with an unlocked account without sending it; gas, fees and nonce are required.",
  }),
  eth_fillTransaction: method({
    params: [CallRequest],
    required: 1,
    result: SignedTransaction,
    summary: "Fills in a transaction's nonce, gas and fees and returns it unsigned.",
  }),
};
