import type { Block } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import type { TypedTransaction } from "@ethereumjs/tx";
import { type Account, bytesToHex, createAddressFromString, equalsBytes } from "@ethereumjs/util";
import type { NetworkFile } from "../config/network.js";
import { advanceCheckpoints, type Checkpoint, type Checkpoints } from "../consensus/checkpoints.js";
import type { BuiltBlock } from "../execution/block/block-executor.js";
import { buildGenesisBlock } from "../execution/block/genesis.js";
import { followHead } from "../execution/evm/common.js";
import { type StateStep, stateWrites } from "../execution/state/state-carry.js";
import type { StateFactory } from "../execution/state/state-factory.js";
import type { BoundedStructure } from "../metrics/bounded-structure.js";
import type { BlockCommit, ChainStore, CheckpointHashes } from "../storage/chain-store.js";
import type { CommitOptions } from "../storage/kv.js";
import type { StoredReceipt } from "../storage/records.js";
import type { DevStateEdit } from "../storage/state-edits.js";
import type { TrieDatabase } from "../storage/trie-db.js";
import { BlockLogsCache } from "./block-logs-cache.js";
import { EventBus } from "./event-bus.js";

/** A block that became the canonical head, with its receipts. */
export interface NewHead {
  readonly block: Block;
  readonly receipts: readonly StoredReceipt[];
}

/** A change of branch: the canonical blocks dropped (old head last) and those that replaced them (new head last). */
export interface Reorg {
  readonly removed: readonly NewHead[];
  readonly added: readonly NewHead[];
}

/**
 * The chain's events. A reorg is announced as `reorg`, then `newHead` for each added block in order
 * (a rewind, dev's `evm_revert`, adds none).
 */
export interface ChainEvents {
  newHead: NewHead;
  /** What a committed block built here changed, announced just before its `newHead`. */
  stateStep: StateStep;
  pendingTransaction: TypedTransaction;
  reorg: Reorg;
}

/** A point of the canonical chain to come back to: its head and the checkpoints it had. */
export interface ChainMark {
  readonly head: Block;
  readonly checkpoints: Checkpoints | undefined;
}

/** Raised when a datadir holds another network's chain. */
export class GenesisMismatchError extends Error {}

/**
 * The canonical chain: its head, the store behind it, the state at any block, and the event bus on
 * which every committed block is announced.
 */
export class Chain {
  readonly events = new EventBus<ChainEvents>();
  /** Serialized logs of recently queried blocks. */
  readonly logCache = new BlockLogsCache();
  private headBlock: Block;
  private headStateManager: MerkleStateManager | undefined;
  /** Accounts read at the head, by lowercase address; dropped with every new head. */
  private headAccounts = new Map<string, Account | undefined>();
  /** Head reads under way, by lowercase address: concurrent requests for one account share one. */
  private headReads = new Map<string, Promise<Account | undefined>>();
  private static readonly HEAD_ACCOUNTS_LIMIT = 100_000;
  /** The latest justified and finalized blocks; undefined on a network without votes (every block is final). */
  private checkpointState: Checkpoints | undefined;

  private constructor(
    readonly store: ChainStore,
    readonly states: StateFactory,
    readonly common: Common,
    readonly genesis: Block,
    head: Block,
    votes: boolean,
  ) {
    this.headBlock = head;
    followHead(common, head.header.number, head.header.timestamp);
    if (votes) this.checkpointState = this.storedCheckpoints();
  }

  /** Opens the chain in `store`, writing the network's genesis first when the store is empty. */
  static async open(
    network: NetworkFile,
    store: ChainStore,
    states: StateFactory,
    trieDb: TrieDatabase,
    common: Common,
  ): Promise<Chain> {
    const genesis = await buildGenesisBlock(network.genesis, common, states, network.system);
    const headHash = store.headHash();
    if (!headHash) {
      await store.commitBlock({ block: genesis, receipts: [], stateWrites: trieDb.drain() });
      return new Chain(store, states, common, genesis, genesis, network.consensus !== undefined);
    }
    trieDb.drain();
    const storedGenesis = store.canonicalHash(0n);
    if (!storedGenesis || !equalsBytes(storedGenesis, genesis.hash())) {
      throw new GenesisMismatchError(
        `the datadir holds a different chain (genesis ${storedGenesis ? bytesToHex(storedGenesis) : "missing"}, network ${network.name} has ${bytesToHex(genesis.hash())})`,
      );
    }
    const head = store.blockByHash(headHash);
    if (!head) throw new Error(`head block ${bytesToHex(headHash)} is missing from the store`);
    return new Chain(store, states, common, genesis, head, network.consensus !== undefined);
  }

  /**
   * The latest justified block (the `safe` tag): on a proof-of-stake network the newest block whose
   * child carries an attestation of two thirds of the active stake (see consensus/checkpoints.ts);
   * on a network without votes the head.
   */
  get safe(): Block {
    return this.checkpointBlock(this.checkpointState?.justified);
  }

  /** The latest finalized block (the `finalized` tag): a justified block whose direct child is justified; without votes the head. */
  get finalized(): Block {
    return this.checkpointBlock(this.checkpointState?.finalized);
  }

  private checkpointBlock(checkpoint: Checkpoint | undefined): Block {
    if (!checkpoint) return this.headBlock;
    return this.store.blockByHash(checkpoint.hash) ?? this.genesis;
  }

  private storedCheckpoints(): Checkpoints {
    const stored = this.store.checkpointHashes();
    const at = (hash: Uint8Array | undefined): Checkpoint => {
      const block = hash ? this.store.blockByHash(hash) : undefined;
      return block
        ? { number: block.header.number, hash: block.hash() }
        : { number: 0n, hash: this.genesis.hash() };
    };
    return { justified: at(stored?.justified), finalized: at(stored?.finalized) };
  }

  /** The canonical head block. */
  get head(): Block {
    return this.headBlock;
  }

  /**
   * A canonical block by number. A block is visible from the moment it becomes the head: one whose
   * storage commit has landed but which is not yet announced is not returned.
   */
  blockByNumber(number: bigint): Block | undefined {
    return number > this.headBlock.header.number ? undefined : this.store.blockByNumber(number);
  }

  /** A stored block by hash, under the same visibility rule as {@link Chain.blockByNumber}. */
  blockByHash(hash: Uint8Array): Block | undefined {
    const block = this.store.blockByHash(hash);
    return block && block.header.number <= this.headBlock.header.number ? block : undefined;
  }

  /** A state manager at the head; reused until the next block so its caches stay warm. */
  headState(): MerkleStateManager {
    this.headStateManager ??= this.states.at(this.headBlock.header.stateRoot, "lru");
    return this.headStateManager;
  }

  /**
   * The account at `address` (lowercase hex) after `block`. Head reads are answered from a per-head
   * map, so the hottest queries of a node (balances and nonces at latest) skip the trie; the result
   * is shared and must not be modified.
   */
  account(block: Block, address: string): Account | undefined | Promise<Account | undefined> {
    if (block !== this.headBlock)
      return this.states.at(block.header.stateRoot).getAccount(createAddressFromString(address));
    const cached = this.headAccounts.get(address);
    if (cached !== undefined || this.headAccounts.has(address)) return cached;
    return this.readHeadAccount(block, address);
  }

  private readHeadAccount(block: Block, address: string): Promise<Account | undefined> {
    const reads = this.headReads;
    let pending = reads.get(address);
    if (!pending) {
      pending = this.loadHeadAccount(block, address).finally(() => reads.delete(address));
      reads.set(address, pending);
    }
    return pending;
  }

  private async loadHeadAccount(block: Block, address: string): Promise<Account | undefined> {
    const account = await this.headState().getAccount(createAddressFromString(address));
    if (block === this.headBlock) {
      if (this.headAccounts.size >= Chain.HEAD_ACCOUNTS_LIMIT) this.headAccounts.clear();
      this.headAccounts.set(address, account);
    }
    return account;
  }

  /** A state manager at `block`'s post-state. */
  stateAt(block: Block): MerkleStateManager {
    return block === this.headBlock ? this.headState() : this.states.at(block.header.stateRoot);
  }

  /** The head-account map, the log cache and the store's caches, for the metrics. */
  boundedStructures(): BoundedStructure[] {
    return [
      {
        name: "head_accounts",
        unit: "entries",
        bound: Chain.HEAD_ACCOUNTS_LIMIT,
        size: () => this.headAccounts.size,
      },
      ...this.logCache.boundedStructures(),
      ...this.store.boundedStructures(),
    ];
  }

  /** Stores a verified block of a competing branch without changing the head. */
  async commitSide(built: BuiltBlock): Promise<void> {
    await this.store.storeSideBlock(built);
  }

  /**
   * Makes `branch` (stored blocks, each the child of the one before, the first a child of a canonical
   * block above the finalized one) the canonical chain: one storage transaction switches the indexes,
   * the head and the checkpoints, then `reorg` and a `newHead` per added block are announced.
   */
  async reorg(branch: readonly Block[]): Promise<Reorg> {
    const first = branch[0]!;
    const removed: NewHead[] = [];
    for (let n = first.header.number; n <= this.headBlock.header.number; n++) {
      const block = this.store.blockByNumber(n)!;
      removed.push({ block, receipts: this.store.receipts(block.hash()) ?? [] });
    }
    const added = branch.map((block) => ({ block, receipts: this.store.receipts(block.hash()) ?? [] }));
    // Checkpoints on the dropped blocks fall back to the finalized one (never dropped: fork choice
    // does not cross it), then advance along the new branch.
    let checkpoints = this.checkpointState;
    if (checkpoints) {
      if (checkpoints.justified.number >= first.header.number)
        checkpoints = { justified: checkpoints.finalized, finalized: checkpoints.finalized };
      let parent = this.store.blockByHash(first.header.parentHash)!;
      for (const block of branch) {
        checkpoints = advanceCheckpoints(checkpoints, block.header, parent.header);
        parent = block;
      }
    }
    await this.store.switchBranch(
      removed.map((r) => r.block),
      branch,
      checkpoints ? checkpointHashes(checkpoints) : undefined,
    );
    this.checkpointState = checkpoints;
    this.adoptHead(branch[branch.length - 1]!);
    const reorg = { removed, added };
    this.events.emit("reorg", reorg);
    for (const newHead of added) this.events.emit("newHead", newHead);
    return reorg;
  }

  /**
   * Commits a built block as the new head (one storage transaction, with the checkpoints it
   * advances, and the dev methods' `stateEdits` it applied at its start, kept for its replays) and
   * announces it.
   */
  commit(built: BuiltBlock, stateEdits?: readonly DevStateEdit[]): Promise<void> {
    return this.commitRun([stateEdits ? { ...built, stateEdits } : built]);
  }

  /**
   * Commits a run of built blocks (each the child of the one before, the first a child of the head)
   * in one storage transaction, with the checkpoints they advance, then announces each as a new
   * head in order. The last becomes the head. `options.background` writes the run on the store's
   * own thread while the caller goes on (see {@link CommitOptions}); the run is announced once written.
   */
  async commitRun(
    run: readonly (BuiltBlock & Pick<BlockCommit, "stateEdits">)[],
    options?: CommitOptions,
  ): Promise<void> {
    const last = run[run.length - 1];
    if (!last) return;
    let checkpoints = this.checkpointState;
    const commits: BlockCommit[] = [];
    let parent: Block | undefined = this.headBlock;
    const parentStateRoot = this.headBlock.header.stateRoot;
    for (const built of run) {
      const { header } = built.block;
      const before = checkpoints;
      if (checkpoints) {
        if (!parent || !equalsBytes(header.parentHash, parent.hash()))
          parent = this.store.blockByHash(header.parentHash);
        if (parent) checkpoints = advanceCheckpoints(checkpoints, header, parent.header);
      }
      commits.push(
        checkpoints && checkpoints !== before
          ? { ...built, checkpoints: checkpointHashes(checkpoints) }
          : built,
      );
      parent = built.block;
    }
    await this.store.commitBlocks(commits, options);
    this.checkpointState = checkpoints;
    this.adoptHead(last.block);
    // The accounts the last block changed are known as they now stand: reads of them skip the trie.
    this.headAccounts = new Map(last.accounts);
    let parentRoot = parentStateRoot;
    for (const built of run) {
      const { stateRoot } = built.block.header;
      if (built.accounts) {
        const written = built.written && stateWrites(built.written);
        this.events.emit("stateStep", {
          blockHash: built.block.hash(),
          parentRoot,
          root: stateRoot,
          changed: [...built.accounts.keys()],
          ...(written ? { written } : {}),
          ...(built.startWrites ? { startWrites: built.startWrites } : {}),
        });
      }
      parentRoot = stateRoot;
      this.events.emit("newHead", { block: built.block, receipts: built.receipts });
    }
  }

  /** Where the chain stands now, to come back to with {@link Chain.rewind} (dev: `evm_snapshot`). */
  mark(): ChainMark {
    return { head: this.headBlock, checkpoints: this.checkpointState };
  }

  /** The chain as it stood at genesis (dev: `anvil_reset`). */
  genesisMark(): ChainMark {
    const genesis = { number: 0n, hash: this.genesis.hash() };
    return {
      head: this.genesis,
      checkpoints: this.checkpointState ? { justified: genesis, finalized: genesis } : undefined,
    };
  }

  /**
   * Makes `mark`'s head, a canonical block, the head again with the checkpoints it had (dev:
   * `evm_revert`, `anvil_reset`; unlike fork choice it crosses the finalized block): one storage
   * transaction drops every canonical block above it, with its indexes and receipts, then `reorg`
   * is announced with those blocks removed and none added. Returns what was removed.
   */
  async rewind(mark: ChainMark): Promise<Reorg> {
    const target = mark.head;
    const canonical = this.store.canonicalHash(target.header.number);
    if (!canonical || !equalsBytes(canonical, target.hash()))
      throw new Error(`block ${target.header.number} to rewind to is not canonical`);
    const removed: NewHead[] = [];
    for (let n = target.header.number + 1n; n <= this.headBlock.header.number; n++) {
      const block = this.store.blockByNumber(n)!;
      removed.push({ block, receipts: this.store.receipts(block.hash()) ?? [] });
    }
    await this.store.rewind(
      removed.map((r) => r.block),
      target,
      mark.checkpoints ? checkpointHashes(mark.checkpoints) : undefined,
    );
    this.checkpointState = mark.checkpoints;
    this.adoptHead(target);
    const reorg = { removed, added: [] };
    this.events.emit("reorg", reorg);
    return reorg;
  }

  /** Makes `head` the head block in memory (its storage commit has landed): rules and head caches follow it. */
  private adoptHead(head: Block): void {
    this.headBlock = head;
    followHead(this.common, head.header.number, head.header.timestamp);
    this.headStateManager = undefined;
    this.headAccounts = new Map();
    this.headReads = new Map();
  }
}

function checkpointHashes(checkpoints: Checkpoints): CheckpointHashes {
  return { justified: checkpoints.justified.hash, finalized: checkpoints.finalized.hash };
}
