import { type Block, createBlockFromRLP } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { utf8ToBytes } from "@ethereumjs/util";
import { LRUCache } from "lru-cache";
import type { BoundedStructure } from "../metrics/bounded-structure.js";
import {
  addressIndexWrites,
  type ContractCreation,
  contractCreation,
  positionsAfter,
  positionsBefore,
  type TxPosition,
  txBySenderAndNonce,
} from "./address-index.js";
import type { CommitOptions, KVStore, WriteOp } from "./kv.js";
import { candidateBlocks, type IndexCriteria, logIndexWrites } from "./log-index.js";
import {
  type BlockRef,
  decodeCanonical,
  decodeReceipts,
  decodeTxLocation,
  encodeCanonical,
  encodeReceipts,
  encodeTxLocation,
  numberKey,
  type StoredReceipt,
  type TxLocation,
} from "./records.js";
import { type DevStateEdit, decodeStateEdits, encodeStateEdits } from "./state-edits.js";

const HEAD_KEY = utf8ToBytes("head");
const JUSTIFIED_KEY = utf8ToBytes("justified");
const FINALIZED_KEY = utf8ToBytes("finalized");
/**
 * Stored size of the receipts kept decoded: a few hundred blocks of transfers. Receipt polling (every
 * client waiting for its transaction) reads the newest blocks' receipts again and again.
 */
const RECEIPTS_CACHE_BYTES = 8 * 1024 * 1024;
/**
 * Blocks whose receipts are kept decoded, whatever their stored size: a block of one transfer stores
 * about 200 bytes of receipts but takes a few kilobytes decoded, so the byte bound alone let the
 * cache grow to some 40,000 small blocks (about 100 MB of heap, filling for most of an hour).
 */
const RECEIPTS_CACHE_BLOCKS = 4_096;
/** Decoded blocks kept. */
const BLOCK_CACHE_ENTRIES = 512;

/** How much a {@link ChainStore} keeps decoded. */
export interface ChainStoreCacheBounds {
  /** Decoded blocks. */
  readonly blocks: number;
  /** Blocks whose receipts are kept decoded. */
  readonly receiptBlocks: number;
  /** Stored bytes of the receipts kept decoded. */
  readonly receiptBytes: number;
}

/** The bounds a node's stores run with. */
const CHAIN_STORE_CACHE_BOUNDS: ChainStoreCacheBounds = {
  blocks: BLOCK_CACHE_ENTRIES,
  receiptBlocks: RECEIPTS_CACHE_BLOCKS,
  receiptBytes: RECEIPTS_CACHE_BYTES,
};

/** The hashes of the latest justified and finalized blocks. */
export interface CheckpointHashes {
  readonly justified: Uint8Array;
  readonly finalized: Uint8Array;
}

/** Everything one block adds to the store; written by {@link ChainStore.commitBlock} in one transaction. */
export interface BlockCommit {
  readonly block: Block;
  readonly receipts: readonly StoredReceipt[];
  /** Trie nodes created while executing the block. */
  readonly stateWrites: readonly WriteOp[];
  /** Hashes of the latest justified and finalized blocks after this one, when finality tracks votes. */
  readonly checkpoints?: CheckpointHashes;
  /** The dev methods' state edits the block applied at its start (dev), kept for its replays. */
  readonly stateEdits?: readonly DevStateEdit[];
}

/**
 * The chain's persistent record over a {@link KVStore}: blocks by hash, the canonical number index,
 * receipts, the transaction index, the log index (blocks by emitting address and topic) and the
 * head pointer. A small cache keeps recently read blocks decoded.
 */
export class ChainStore {
  private readonly cache = new Map<string, Block>();
  /** Decoded receipts of recently written or read blocks, weighed by their stored size. */
  private readonly receiptsCache: LRUCache<string, readonly StoredReceipt[]>;

  constructor(
    private readonly kv: KVStore,
    private readonly common: Common,
    private readonly bounds = CHAIN_STORE_CACHE_BOUNDS,
  ) {
    this.receiptsCache = new LRUCache({ max: bounds.receiptBlocks, maxSize: bounds.receiptBytes });
  }

  /** The hash of the canonical head, or undefined for an empty store. */
  headHash(): Uint8Array | undefined {
    return this.kv.get("meta", HEAD_KEY);
  }

  /** The hashes of the latest justified and finalized blocks, as the last commit left them. */
  checkpointHashes(): CheckpointHashes | undefined {
    const justified = this.kv.get("meta", JUSTIFIED_KEY);
    const finalized = this.kv.get("meta", FINALIZED_KEY);
    return justified && finalized ? { justified, finalized } : undefined;
  }

  /** The canonical block hash at `number`. */
  canonicalHash(number: bigint): Uint8Array | undefined {
    return this.kv.get("canonical", numberKey(number))?.subarray(0, 32);
  }

  /** Hash, number and timestamp of the canonical block at `number`, without decoding the block. */
  blockRef(number: bigint): BlockRef | undefined {
    const bytes = this.kv.get("canonical", numberKey(number));
    return bytes ? decodeCanonical(number, bytes) : undefined;
  }

  /** A block by hash, decoded (and cached). */
  blockByHash(hash: Uint8Array): Block | undefined {
    const key = Buffer.from(hash).toString("hex");
    const cached = this.cache.get(key);
    if (cached) return cached;
    const bytes = this.kv.get("blocks", hash);
    if (!bytes) return undefined;
    // Each block is decoded under the rules of its own fork (number and timestamp).
    const block = createBlockFromRLP(bytes, {
      common: this.common,
      setHardfork: true,
      // Sealed proof-of-stake headers carry 97 bytes of extraData (vanity and seal), beyond the merge's 32.
      skipConsensusFormatValidation: true,
    });
    this.remember(key, block);
    return block;
  }

  /** The canonical block at `number`. */
  blockByNumber(number: bigint): Block | undefined {
    const hash = this.canonicalHash(number);
    return hash ? this.blockByHash(hash) : undefined;
  }

  /** The receipts of a block, in transaction order (shared with other readers: never change them). */
  receipts(blockHash: Uint8Array): readonly StoredReceipt[] | undefined {
    const key = Buffer.from(blockHash).toString("hex");
    const cached = this.receiptsCache.get(key);
    if (cached) return cached;
    const bytes = this.kv.get("receipts", blockHash);
    if (!bytes) return undefined;
    const receipts = decodeReceipts(bytes);
    this.receiptsCache.set(key, receipts, { size: Math.max(1, bytes.length) });
    return receipts;
  }

  /** The dev methods' state edits that the block `blockHash` applied at its start, if any. */
  stateEdits(blockHash: Uint8Array): DevStateEdit[] | undefined {
    const bytes = this.kv.get("stateEdits", blockHash);
    return bytes ? decodeStateEdits(bytes) : undefined;
  }

  /** Where a mined transaction lives. */
  txLocation(txHash: Uint8Array): TxLocation | undefined {
    const bytes = this.kv.get("txIndex", txHash);
    return bytes ? decodeTxLocation(bytes) : undefined;
  }

  /** Writes a block, its receipts, its transaction index, its state, the new head and the checkpoints atomically. */
  commitBlock(commit: BlockCommit): Promise<void> {
    return this.commitBlocks([commit]);
  }

  /**
   * Writes a run of blocks (each the child of the one before, the first a child of the head) as
   * {@link commitBlock} writes one, all in one transaction: the last becomes the head, with its
   * checkpoints. A crash leaves either the whole run or none of it. `options.background` writes it
   * on the store's own thread (see {@link CommitOptions}).
   */
  async commitBlocks(commits: readonly BlockCommit[], options?: CommitOptions): Promise<void> {
    const ops: WriteOp[] = [];
    const encoded: Uint8Array[] = [];
    for (const commit of commits) {
      const { block } = commit;
      const hash = block.hash();
      const receipts = encodeReceipts(commit.receipts);
      encoded.push(receipts);
      for (const op of commit.stateWrites) ops.push(op);
      ops.push({ bucket: "blocks", key: hash, value: block.serialize() });
      ops.push({ bucket: "receipts", key: hash, value: receipts });
      for (const op of canonicalWrites(block, commit.receipts)) ops.push(op);
      if (commit.stateEdits?.length)
        ops.push({ bucket: "stateEdits", key: hash, value: encodeStateEdits(commit.stateEdits) });
    }
    const last = commits[commits.length - 1];
    if (!last) return;
    ops.push({ bucket: "meta", key: HEAD_KEY, value: last.block.hash() });
    const checkpoints = [...commits].reverse().find((c) => c.checkpoints)?.checkpoints;
    if (checkpoints) ops.push(...checkpointWrites(checkpoints));
    await this.kv.commit(ops, options);
    commits.forEach((commit, i) => {
      this.cacheBlock(commit.block, commit.receipts, encoded[i]!.length);
    });
  }

  /**
   * Writes a block of a competing branch with its receipts and state, leaving the canonical chain
   * and its indexes as they are (fork choice may make it canonical later, {@link switchBranch}).
   */
  async storeSideBlock(commit: BlockCommit): Promise<void> {
    const { block } = commit;
    const hash = block.hash();
    const receipts = encodeReceipts(commit.receipts);
    await this.kv.commit([
      ...commit.stateWrites,
      { bucket: "blocks", key: hash, value: block.serialize() },
      { bucket: "receipts", key: hash, value: receipts },
    ]);
    this.cacheBlock(block, commit.receipts, receipts.length);
  }

  /**
   * Makes another branch canonical in one transaction: the indexes of the `removed` blocks (the old
   * branch above the common ancestor) are deleted, those of the `added` blocks (stored before,
   * ancestor first) written, and the head (and the checkpoints, when given) set.
   */
  async switchBranch(
    removed: readonly Block[],
    added: readonly Block[],
    checkpoints?: CheckpointHashes,
  ): Promise<void> {
    const ops = this.unindexWrites(removed);
    for (const block of added) ops.push(...canonicalWrites(block, this.receipts(block.hash()) ?? []));
    ops.push({ bucket: "meta", key: HEAD_KEY, value: added[added.length - 1]!.hash() });
    if (checkpoints) ops.push(...checkpointWrites(checkpoints));
    await this.kv.commit(ops);
  }

  /**
   * Makes the canonical block `head` the head again, in one transaction: the canonical blocks above
   * it (`removed`) lose their indexes and are deleted with their receipts (they will never be
   * served again, by number or by hash), and the head and the checkpoints are set. Their state's
   * trie nodes stay, as every past state's do.
   */
  async rewind(removed: readonly Block[], head: Block, checkpoints?: CheckpointHashes): Promise<void> {
    const ops = this.unindexWrites(removed);
    for (const block of removed) {
      ops.push({ bucket: "blocks", key: block.hash(), value: null });
      ops.push({ bucket: "receipts", key: block.hash(), value: null });
      ops.push({ bucket: "stateEdits", key: block.hash(), value: null });
    }
    ops.push({ bucket: "meta", key: HEAD_KEY, value: head.hash() });
    if (checkpoints) ops.push(...checkpointWrites(checkpoints));
    await this.kv.commit(ops);
    for (const block of removed) {
      const key = Buffer.from(block.hash()).toString("hex");
      this.cache.delete(key);
      this.receiptsCache.delete(key);
    }
  }

  /** Canonical blocks in `[from, to]` that may hold logs matching `criteria`, ascending (from the log index). */
  logBlocks(criteria: IndexCriteria, from: bigint, to: bigint): bigint[] {
    return candidateBlocks(this.kv, criteria, from, to);
  }

  /** Positions of the transactions touching `address` (sender, recipient, created contract), newest first, in blocks `< before`. */
  addressTxsBefore(address: Uint8Array, before: bigint | undefined, head: bigint): Iterable<TxPosition> {
    return positionsBefore(this.kv, address, before, head);
  }

  /** Positions of the transactions touching `address`, oldest first, in blocks `> after` up to `head`. */
  addressTxsAfter(address: Uint8Array, after: bigint, head: bigint): Iterable<TxPosition> {
    return positionsAfter(this.kv, address, after, head);
  }

  /** The hash of the mined transaction `sender` sent with `nonce`. */
  txBySenderAndNonce(sender: Uint8Array, nonce: bigint): Uint8Array | undefined {
    return txBySenderAndNonce(this.kv, sender, nonce);
  }

  /** The top-level transaction that deployed `contract`, and its sender. */
  contractCreation(contract: Uint8Array): ContractCreation | undefined {
    return contractCreation(this.kv, contract);
  }

  /** The decoded-block and receipt caches, for the metrics. */
  boundedStructures(): BoundedStructure[] {
    const receipts = this.receiptsCache;
    return [
      { name: "blocks", unit: "entries", bound: this.bounds.blocks, size: () => this.cache.size },
      { name: "receipts", unit: "entries", bound: this.bounds.receiptBlocks, size: () => receipts.size },
      {
        name: "receipts_stored_bytes",
        unit: "bytes",
        bound: this.bounds.receiptBytes,
        size: () => receipts.calculatedSize,
      },
    ];
  }

  /** Closes the underlying store. */
  close(): Promise<void> {
    return this.kv.close();
  }

  /** Deletes of the index entries that make `blocks` canonical. */
  private unindexWrites(blocks: readonly Block[]): WriteOp[] {
    const ops: WriteOp[] = [];
    for (const block of blocks) {
      for (const op of canonicalWrites(block, this.receipts(block.hash()) ?? []))
        ops.push({ ...op, value: null });
    }
    return ops;
  }

  private cacheBlock(block: Block, receipts: readonly StoredReceipt[], storedBytes: number): void {
    const key = Buffer.from(block.hash()).toString("hex");
    this.remember(key, block);
    this.receiptsCache.set(key, receipts, { size: Math.max(1, storedBytes) });
  }

  private remember(key: string, block: Block): void {
    if (this.cache.size >= this.bounds.blocks) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(key, block);
  }
}

/** The writes that record the latest justified and finalized blocks. */
function checkpointWrites(checkpoints: CheckpointHashes): WriteOp[] {
  return [
    { bucket: "meta", key: JUSTIFIED_KEY, value: checkpoints.justified },
    { bucket: "meta", key: FINALIZED_KEY, value: checkpoints.finalized },
  ];
}

/** The index entries that make `block` canonical: its number, its transactions, logs and addresses. */
function canonicalWrites(block: Block, receipts: readonly StoredReceipt[]): WriteOp[] {
  const hash = block.hash();
  const ops: WriteOp[] = [
    ...logIndexWrites(block.header.number, receipts),
    ...addressIndexWrites(block, receipts),
  ];
  block.transactions.forEach((tx, index) => {
    ops.push({ bucket: "txIndex", key: tx.hash(), value: encodeTxLocation({ blockHash: hash, index }) });
  });
  ops.push({
    bucket: "canonical",
    key: numberKey(block.header.number),
    value: encodeCanonical(hash, block.header.timestamp),
  });
  return ops;
}
