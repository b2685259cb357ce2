import { type Block, createBlock } from "@ethereumjs/block";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { bytesToHex } from "@ethereumjs/util";
import type { Chain } from "../chain/chain.js";
import type { PosEngine } from "../consensus/engine.js";
import { NoProposerError, NotYourTurnError } from "../consensus/errors.js";
import { type BlockExecutor, type BlockHooks, blockMixHash } from "../execution/block-executor.js";
import type { StoredReceipt } from "../storage/records.js";
import type { TxPool } from "../txpool/tx-pool.js";
import type { BlockProducer } from "./block-producer.js";

/** The block the node would build next, executed: its transactions' receipts and the state after it. */
export interface PendingBuild {
  /** Unsealed: its hash is not the one the mined block will have. */
  readonly block: Block;
  readonly receipts: readonly StoredReceipt[];
  readonly state: MerkleStateManager;
}

/** Where the pending block's parts come from. */
export interface PendingBlockSources {
  readonly chain: Chain;
  readonly pool: TxPool;
  readonly producer: BlockProducer;
  /** An executor over a scratch trie database: nothing it writes reaches the store. */
  readonly executor: BlockExecutor;
  /** Opens the state at a root the scratch executor wrote. */
  readonly scratchState: (stateRoot: Uint8Array) => MerkleStateManager;
  readonly coinbase: Uint8Array;
  readonly engine?: PosEngine;
}

/**
 * `pending`: the block the producer would build next: number head + 1, the producer's next
 * timestamp, the next base fee, and the pool's executable transactions and queued dev state edits
 * applied. Built lazily and cached per (head, pool version, edits, timestamp), one of each kind:
 * while the pool holds nothing executable and no edit waits (the usual case under automine) calls
 * get a header-only block over the head's state, which costs no execution at all; otherwise the
 * block is built as the producer would, on a scratch trie, unsealed.
 */
export class PendingBlocks {
  private poolVersion = 0;
  private header: { key: string; block: Block } | undefined;
  private build: { key: string; result: Promise<PendingBuild> } | undefined;
  private lastBuilt: PendingBuild | undefined;

  constructor(private readonly sources: PendingBlockSources) {
    sources.chain.events.on("pendingTransaction", () => {
      this.poolVersion++;
    });
  }

  /** True when the pending block changes nothing in the head's state (no executable transaction, no edit). */
  get isEmpty(): boolean {
    return !this.sources.pool.hasExecutable() && this.sources.producer.edits.isEmpty;
  }

  /** The block calls and estimates at `pending` run in (its state: {@link PendingBlocks.stateOf}). */
  async callBlock(): Promise<Block> {
    return this.isEmpty ? this.headerBlock() : (await this.built()).block;
  }

  /** The pending block executed (`eth_getBlockByNumber("pending")`, state reads at `pending`). */
  built(): Promise<PendingBuild> {
    const { chain, pool, producer } = this.sources;
    const timestamp = producer.pendingTimestamp();
    const key = `${bytesToHex(chain.head.hash())}:${this.poolVersion}:${pool.size}:${producer.edits.revision}:${timestamp}`;
    if (this.build?.key !== key) {
      const result = this.execute(timestamp);
      this.build = { key, result };
      result.then(
        (built) => {
          this.lastBuilt = built;
        },
        () => {
          if (this.build?.key === key) this.build = undefined;
        },
      );
    }
    return this.build.result;
  }

  /**
   * The state after a block this object made: the head's for a header-only block, the built state
   * for the last built one; undefined for any other block.
   */
  stateOf(block: Block): MerkleStateManager | undefined {
    if (block === this.header?.block) return this.sources.chain.headState();
    if (block === this.lastBuilt?.block) return this.lastBuilt.state;
    return undefined;
  }

  /** The next block's header over the head's state, for calls when the pending block holds nothing. */
  private headerBlock(): Block {
    const { chain, producer, coinbase } = this.sources;
    const parent = chain.head;
    const timestamp = producer.pendingTimestamp();
    const key = `${bytesToHex(parent.hash())}:${timestamp}`;
    if (this.header?.key === key) return this.header.block;
    const { header } = parent;
    const block = createBlock(
      {
        header: {
          parentHash: parent.hash(),
          number: header.number + 1n,
          timestamp,
          gasLimit: header.gasLimit,
          coinbase,
          mixHash: blockMixHash(parent),
          stateRoot: header.stateRoot,
          ...(header.baseFeePerGas !== undefined ? { baseFeePerGas: header.calcNextBaseFee() } : {}),
          ...(header.excessBlobGas !== undefined
            ? { excessBlobGas: header.calcNextExcessBlobGas(chain.common) }
            : {}),
        },
      },
      { common: chain.common, setHardfork: true, skipConsensusFormatValidation: true },
    );
    this.header = { key, block };
    return block;
  }

  private async execute(timestamp: bigint): Promise<PendingBuild> {
    const { chain, pool, producer, executor, coinbase, engine } = this.sources;
    const parent = chain.head;
    const candidates = pool.executable(parent.header.calcNextBaseFee());
    const edits = producer.edits.peek();
    const template = { timestamp, coinbase };
    let built: Awaited<ReturnType<BlockExecutor["build"]>>;
    try {
      const hooks = producer.edits.withEdits(engine ? unsealed(engine.producerHooks()) : undefined, edits);
      built = await executor.build(parent, candidates, { ...template, ...(hooks ? { hooks } : {}) });
    } catch (error) {
      // This node's validators are not the ones to propose next: build as a plain block.
      if (!(error instanceof NotYourTurnError) && !(error instanceof NoProposerError)) throw error;
      const hooks = producer.edits.withEdits(undefined, edits);
      built = await executor.build(parent, candidates, { ...template, ...(hooks ? { hooks } : {}) });
    }
    return {
      block: built.block,
      receipts: built.receipts,
      state: this.sources.scratchState(built.block.header.stateRoot),
    };
  }
}

/** The engine's steps of a block without its seal (and without what sealing remembers). */
function unsealed(hooks: BlockHooks): BlockHooks {
  return { ...hooks, seal: (block) => block };
}
