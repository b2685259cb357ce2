import type { Block } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import { type Account, Address, bigIntToBytes, concatBytes, equalsBytes } from "@ethereumjs/util";
import { createVM, type PostByzantiumTxReceipt, type RunTxResult, type VM } from "@ethereumjs/vm";
import { keccak256 } from "../../crypto/keccak.js";
import type { BoundedStructure } from "../../metrics/bounded-structure.js";
import type { WriteOp } from "../../storage/kv.js";
import type { StoredReceipt } from "../../storage/records.js";
import type { TrieDatabase } from "../../storage/trie-db.js";
import type { ChainView } from "../evm/chain-view.js";
import type {
  DecodedAccountStateManager,
  FlushedStorageAndCode,
  WriteLog,
} from "../state/decoded-account-cache.js";
import { cachedEntryCount } from "../state/state-caches.js";
import { type StartOfBlockWrites, startOfBlockWrites } from "../state/state-carry.js";
import type { StateFactory } from "../state/state-factory.js";
import { StreamingBlockBuilder } from "./streaming-block-builder.js";

/** Header fields the producer chooses for a new block. */
export interface BlockTemplate {
  readonly timestamp: bigint;
  readonly coinbase: Uint8Array;
  readonly extraData?: Uint8Array;
  /** Consensus steps around the transactions (proof-of-stake networks). */
  readonly hooks?: BlockHooks;
  /**
   * Leave the trie nodes the block creates in the trie database rather than taking them as its
   * `stateWrites`: the next block of a run committed in one storage transaction, built on this
   * one, reads them there, and the run's last block takes them all.
   */
  readonly keepStateWrites?: boolean;
  /** Runs each candidate transaction (`run` adds it to the block), watching it (dev: call traces). */
  readonly runTransaction?: TransactionRunner;
}

/** Where a candidate runs: the block's miner and how many logs its earlier transactions emitted. */
export interface TransactionPlace {
  readonly coinbase: Address;
  readonly logIndexBase: number;
}

/**
 * Runs `tx` on `vm` by calling `run`, which adds it to the block under construction. It must leave
 * the execution as `run` makes it.
 */
export type TransactionRunner = (
  vm: VM,
  tx: TypedTransaction,
  place: TransactionPlace,
  run: () => Promise<RunTxResult>,
) => Promise<RunTxResult>;

/** What a block's consensus steps see: the VM on the block's state and the block's execution context. */
export interface BlockContext {
  readonly vm: VM;
  readonly parent: Block;
  readonly number: bigint;
  readonly timestamp: bigint;
  readonly coinbase: Uint8Array;
  readonly mixHash: Uint8Array;
  readonly gasLimit: bigint;
  readonly baseFeePerGas: bigint;
}

/** Consensus steps of one block, run by {@link BlockExecutor.build} around its transactions. */
export interface BlockHooks {
  /**
   * Decides the header fields on the parent state (the VM is positioned there), before anything
   * runs; throws when the block cannot be made.
   */
  prepare(vm: VM, parent: Block, template: BlockTemplate): Promise<BlockTemplate>;
  /** Runs after the start-of-block system calls, before the first transaction. */
  beforeTransactions(context: BlockContext): Promise<void>;
  /** Runs after the last transaction; `fees` is what the transactions paid the coinbase. */
  afterTransactions(context: BlockContext, fees: bigint): Promise<void>;
  /** Seals the built block (a proposer may wait for its attestation's votes first). */
  seal(block: Block): Block | Promise<Block>;
}

/** A transaction offered for a block, with its already recovered sender. */
export interface Candidate {
  readonly tx: TypedTransaction;
  readonly senderAddress: Address;
  /** The sender as lowercase hex. */
  readonly sender: string;
}

/** A transaction the executor could not include, with the reason. */
export interface RejectedTx {
  readonly tx: TypedTransaction;
  readonly error: Error;
}

/** The outcome of building a block: the sealed block, its receipts, its state writes, and what was left out. */
export interface BuiltBlock {
  readonly block: Block;
  readonly receipts: StoredReceipt[];
  readonly stateWrites: WriteOp[];
  readonly rejected: RejectedTx[];
  /** Accounts the block changed, as they stand after it (by lowercase hex; undefined: deleted), when known. */
  readonly accounts?: ReadonlyMap<string, Account | undefined>;
  /** The storage slots and code the block wrote, as they stand after it, when known with `accounts`. */
  readonly written?: FlushedStorageAndCode;
  /** What the hooks' start-of-block steps wrote, as it stood before the first transaction, when small. */
  readonly startWrites?: StartOfBlockWrites;
}

/** The `mixHash` (prevRandao) of the block built on `parent`. */
export function blockMixHash(parent: Block): Uint8Array {
  return keccak256(concatBytes(parent.hash(), bigIntToBytes(parent.header.number + 1n)));
}

/**
 * Cached entries (accounts, storage slots, code) at which a block's state is no longer carried to the
 * next block. The carried state gains entries with every block (storage slots the system contracts
 * write per block, a few per block on the dev network, most never read again), so it is dropped at
 * 20,000 entries (a few MB) and rebuilt from the trie-node cache.
 */
export const WARM_STATE_LIMIT = 20_000;

/**
 * Executes transactions on top of a parent block and assembles the resulting block. The state a
 * block was built on is kept, caches warm, for a block built next on top of it (the producer's
 * steady case): system contracts' storage, senders and recipients are then read from memory rather
 * than walked in the trie again; the VM is kept with it while the rules stay the same.
 */
export class BlockExecutor {
  /** The state after the last block built, positioned at that block's state root, and its VM. */
  private warm:
    | { readonly root: Uint8Array; readonly state: DecodedAccountStateManager; readonly vm: VM }
    | undefined;

  /** `warmStateLimit`: cached entries at which a block's state is not carried to the next. */
  constructor(
    private readonly common: Common,
    private readonly states: StateFactory,
    private readonly trieDb: TrieDatabase,
    private readonly chainView: ChainView,
    private readonly warmStateLimit = WARM_STATE_LIMIT,
  ) {}

  /** The state carried from the last block built, for the metrics. */
  boundedStructures(): BoundedStructure[] {
    return [
      {
        name: "warm_state",
        unit: "entries",
        bound: this.warmStateLimit,
        size: () => (this.warm === undefined ? 0 : cachedEntryCount(this.warm.state)),
      },
    ];
  }

  /**
   * Builds a block on `parent` from `candidates` (in order; a sender whose transaction fails is skipped
   * for the rest of the block, since its later nonces can no longer apply). Stops adding once the
   * block gas limit is reached.
   */
  async build(parent: Block, candidates: readonly Candidate[], proposed: BlockTemplate): Promise<BuiltBlock> {
    const number = parent.header.number + 1n;
    const { state, vm: warmVm } = this.stateOn(parent);
    // Only this block's writes are reported with it.
    state.takeFlushedAccounts();
    // The new block follows the rules of its own fork, which may differ from its parent's; the VM
    // of the block before serves again under the same rules.
    const hardfork = this.common.getHardforkBy({ blockNumber: number, timestamp: proposed.timestamp });
    const vm =
      warmVm?.common.hardfork() === hardfork
        ? warmVm
        : await this.createVm(state, number, proposed.timestamp);
    const { hooks } = proposed;
    const template = hooks ? await hooks.prepare(vm, parent, proposed) : proposed;
    if (template.timestamp !== proposed.timestamp) {
      vm.common.setHardforkBy({ blockNumber: number, timestamp: template.timestamp });
    }
    const mixHash = blockMixHash(parent);
    const builder = await StreamingBlockBuilder.start(vm, {
      parentBlock: parent,
      headerData: {
        number,
        timestamp: template.timestamp,
        coinbase: template.coinbase,
        extraData: template.extraData ?? new Uint8Array(),
        mixHash,
      },
      // Proof-of-stake headers carry vanity, attestation and seal in extraData, beyond the merge's 32 bytes.
      blockOpts: { putBlockIntoBlockchain: false, setHardfork: false, skipConsensusFormatValidation: true },
    });
    const gasLimit = parent.header.gasLimit;
    const context: BlockContext = {
      vm,
      parent,
      number,
      timestamp: template.timestamp,
      coinbase: template.coinbase,
      mixHash,
      gasLimit,
      baseFeePerGas: parent.header.calcNextBaseFee(),
    };
    let startWrites: StartOfBlockWrites | undefined;
    // Only a block with transactions is worth noting for its replays (an empty one has nothing to trace).
    if (hooks && candidates.length > 0) startWrites = await this.startOfBlock(state, hooks, context);
    else await hooks?.beforeTransactions(context);
    let fees = 0n;
    let logCount = 0;
    const miner = new Address(template.coinbase);
    const receipts: StoredReceipt[] = [];
    const rejected: RejectedTx[] = [];
    const failedSenders = new Set<string>();
    for (const { tx, senderAddress: sender, sender: senderKey } of candidates) {
      if (failedSenders.has(senderKey)) continue;
      if (builder.gasUsed + tx.gasLimit > gasLimit) {
        if (gasLimit - builder.gasUsed < 21_000n) break;
        failedSenders.add(senderKey);
        continue;
      }
      try {
        const add = () => builder.addTransaction(tx);
        const place = { coinbase: miner, logIndexBase: logCount };
        const result = await (proposed.runTransaction ? proposed.runTransaction(vm, tx, place, add) : add());
        logCount += result.receipt.logs.length;
        const receipt = result.receipt as PostByzantiumTxReceipt;
        fees += result.minerValue;
        receipts.push({
          type: tx.type,
          status: receipt.status,
          cumulativeGasUsed: receipt.cumulativeBlockGasUsed,
          gasUsed: result.totalGasSpent,
          logs: receipt.logs.map(([address, topics, data]) => ({ address, topics, data })),
          sender: sender.bytes,
          contractAddress: result.createdAddress?.bytes,
          txHash: tx.hash(),
        });
      } catch (error) {
        failedSenders.add(senderKey);
        rejected.push({ tx, error: error instanceof Error ? error : new Error(String(error)) });
      }
    }
    await hooks?.afterTransactions(context, fees);
    const { block: unsealed } = await builder.build();
    const block = hooks ? await hooks.seal(unsealed) : unsealed;
    this.warm =
      cachedEntryCount(state) < this.warmStateLimit ? { root: block.header.stateRoot, state, vm } : undefined;
    const written = state.flushedStorageAndCode();
    const accounts = state.takeFlushedAccounts();
    const stateWrites = proposed.keepStateWrites ? [] : this.trieDb.drain();
    return {
      block,
      receipts,
      stateWrites,
      rejected,
      accounts,
      written,
      ...(startWrites ? { startWrites } : {}),
    };
  }

  /** Runs `hooks`' start-of-block steps, noting what they write: a replay of the block can put it back. */
  private async startOfBlock(
    state: DecodedAccountStateManager,
    hooks: BlockHooks,
    context: BlockContext,
  ): Promise<StartOfBlockWrites | undefined> {
    state.openWriteLog();
    let log: WriteLog | undefined;
    try {
      await hooks.beforeTransactions(context);
    } finally {
      log = state.closeWriteLog();
    }
    return log && startOfBlockWrites(state, log);
  }

  /**
   * A state at `parent`'s state root for building on it, with the VM that built `parent` on it: the
   * last built block's when `parent` is that block (taken, so a build that fails leaves nothing
   * half-done to reuse), else a fresh state and no VM.
   */
  private stateOn(parent: Block): { state: DecodedAccountStateManager; vm?: VM } {
    const warm = this.warm;
    this.warm = undefined;
    const root = parent.header.stateRoot;
    if (warm && equalsBytes(warm.root, root)) return warm;
    return { state: this.states.at(root, "map") };
  }

  private createVm(state: DecodedAccountStateManager, number: bigint, timestamp: bigint): Promise<VM> {
    const common = this.common.copy();
    common.setHardforkBy({ blockNumber: number, timestamp });
    return createVM({ common, stateManager: state, blockchain: this.chainView });
  }
}
