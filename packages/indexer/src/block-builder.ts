import type { indexerDb } from "@strata/db";
import type { RpcTransaction } from "@strata/protocol";
import type { FetchedBlock } from "./block-fetcher.js";
import type { ChainModules } from "./chain-modules.js";
import { decodeTransfer, probeErc20 } from "./erc20.js";
import { revertReason } from "./revert-reason.js";
import type { RpcClient } from "./rpc-client.js";

type IndexedBlock = indexerDb.IndexedBlock;
type TokenRow = indexerDb.TokenRow;

const big = (hex: string | null | undefined) => (hex === null || hex === undefined ? null : BigInt(hex));
const lower = (s: string) => s.toLowerCase();

/** Addresses each of a {@link TokenRegistry}'s two sets holds at most (about 10 MB each). */
export const TOKEN_REGISTRY_BOUND = 100_000;

/** Adds `address` to `set`, forgetting the oldest entry when the set is at `bound`. */
function addBounded(set: Set<string>, address: string, bound: number): void {
  if (set.has(address)) return;
  if (set.size >= bound) set.delete(set.values().next().value as string);
  set.add(address);
}

/**
 * Which contracts are ERC-20 tokens: the stored ones, plus what probing has learned since. Each set
 * holds at most `bound` addresses, the oldest going first: a forgotten address is probed again.
 */
export class TokenRegistry {
  readonly #tokens = new Set<string>();
  readonly #notTokens = new Set<string>();

  constructor(readonly bound = TOKEN_REGISTRY_BOUND) {}

  /** Forgets what was learned and starts from the stored token addresses (the last `bound` of them). */
  reset(stored: readonly string[]): void {
    this.#tokens.clear();
    for (const a of stored.slice(-this.bound)) this.#tokens.add(a);
  }

  /** Known tokens and known non-tokens held. */
  get sizes(): { readonly tokens: number; readonly notTokens: number } {
    return { tokens: this.#tokens.size, notTokens: this.#notTokens.size };
  }

  /** Whether `address` is known to be a token (`true`), known not to be (`false`), or unknown. */
  knows(address: string): boolean | undefined {
    if (this.#tokens.has(address)) return true;
    return this.#notTokens.has(address) ? false : undefined;
  }

  /** Records a probe's outcome for `address`. */
  learn(address: string, isToken: boolean): void {
    addBounded(isToken ? this.#tokens : this.#notTokens, address, this.bound);
  }
}

/**
 * Turns a fetched block into the rows to store: decodes ERC-20 transfers (probing unknown emitters and
 * new contracts with `eth_call`), replays reverted transactions for their reason, and asks the chain
 * modules for validator snapshots and oracle prices. `atHead` says the block is the node's head.
 */
export async function buildIndexedBlock(
  fetched: FetchedBlock,
  rpc: RpcClient,
  tokens: TokenRegistry,
  modules: ChainModules,
  atHead: boolean,
): Promise<IndexedBlock> {
  const { block, receipts } = fetched;
  const number = BigInt(block.number);
  const tag = block.number;
  const addresses = new Set<string>();
  const touch = (a: string | null | undefined) => {
    if (a) addresses.add(lower(a));
  };
  const txByHash = new Map<string, RpcTransaction>();
  for (const tx of block.transactions) {
    txByHash.set(tx.hash, tx);
    touch(tx.from);
    touch(tx.to);
  }

  const contracts = receipts
    .filter((r) => r.contractAddress)
    .map((r) => ({
      address: lower(r.contractAddress!),
      creator: lower(txByHash.get(r.transactionHash)!.from),
      creationTransaction: r.transactionHash,
      blockNumber: number,
    }));
  const logs = receipts.flatMap((r) => r.logs);
  const candidates = new Set<string>(contracts.map((c) => c.address));
  for (const log of logs) {
    if (decodeTransfer(log.topics, log.data)) candidates.add(lower(log.address));
  }
  const newTokens: TokenRow[] = [];
  for (const address of candidates) {
    if (tokens.knows(address) !== undefined) continue;
    const metadata = await probeErc20(rpc, address, tag);
    tokens.learn(address, metadata !== undefined);
    if (metadata) newTokens.push({ address, ...metadata, blockNumber: number });
  }

  const tokenTransfers = logs.flatMap((log) => {
    const transfer = decodeTransfer(log.topics, log.data);
    if (!transfer || tokens.knows(lower(log.address)) !== true) return [];
    touch(transfer.from);
    touch(transfer.to);
    return [
      {
        blockNumber: number,
        logIndex: Number(log.logIndex),
        transactionHash: log.transactionHash,
        token: lower(log.address),
        from: transfer.from,
        to: transfer.to,
        value: transfer.value,
      },
    ];
  });
  for (const log of logs) touch(log.address);
  for (const c of contracts) touch(c.address);

  const receiptRows = [];
  for (const r of receipts) {
    const status = Number(r.status);
    receiptRows.push({
      transactionHash: r.transactionHash,
      blockNumber: number,
      status,
      gasUsed: BigInt(r.gasUsed),
      cumulativeGasUsed: BigInt(r.cumulativeGasUsed),
      effectiveGasPrice: big(r.effectiveGasPrice),
      contractAddress: r.contractAddress ? lower(r.contractAddress) : null,
      revertReason: status === 0 ? await revertReason(rpc, txByHash.get(r.transactionHash)!) : null,
    });
  }

  return {
    block: {
      number,
      hash: block.hash,
      parentHash: block.parentHash,
      timestamp: BigInt(block.timestamp),
      miner: lower(block.miner),
      gasUsed: BigInt(block.gasUsed),
      gasLimit: BigInt(block.gasLimit),
      baseFeePerGas: big(block.baseFeePerGas),
      transactionCount: block.transactions.length,
      size: BigInt(block.size),
    },
    transactions: block.transactions.map((tx) => ({
      hash: tx.hash,
      blockNumber: number,
      blockHash: block.hash,
      index: Number(tx.transactionIndex),
      from: lower(tx.from),
      to: tx.to ? lower(tx.to) : null,
      value: BigInt(tx.value),
      nonce: BigInt(tx.nonce),
      gas: BigInt(tx.gas),
      gasPrice: big(tx.gasPrice),
      maxFeePerGas: big(tx.maxFeePerGas),
      maxPriorityFeePerGas: big(tx.maxPriorityFeePerGas),
      type: Number(tx.type ?? "0x0"),
      input: tx.input,
    })),
    receipts: receiptRows,
    logs: logs.map((log) => ({
      blockNumber: number,
      logIndex: Number(log.logIndex),
      transactionHash: log.transactionHash,
      transactionIndex: Number(log.transactionIndex),
      address: lower(log.address),
      topics: log.topics,
      data: log.data,
    })),
    addresses: [...addresses],
    contracts,
    tokens: newTokens,
    tokenTransfers,
    validatorSnapshots: await modules.validatorSnapshot(number, atHead),
    oraclePrices: await modules.oraclePrices(number, logs),
  };
}
