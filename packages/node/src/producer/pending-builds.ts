import type { Block } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import type { NetworkFile } from "../config/network.js";
import { PosEngine } from "../consensus/engine.js";
import { NotFoundError } from "../errors/domain-errors.js";
import { BlockExecutor } from "../execution/block/block-executor.js";
import type { ChainView } from "../execution/evm/chain-view.js";
import { StateFactory } from "../execution/state/state-factory.js";
import { type BoundedStructure, prefixed } from "../metrics/bounded-structure.js";
import type { KVStore } from "../storage/kv.js";
import { TrieDatabase } from "../storage/trie-db.js";
import {
  buildPendingBlock,
  isHeaderOnly,
  nextHeaderBlock,
  type PendingBuild,
  type PendingContext,
  type PendingProposers,
  receivedCandidates,
  receivedEdits,
} from "./pending-execution.js";

/** What an execution worker makes pending blocks from. */
export interface PendingBuildSources {
  readonly kv: KVStore;
  readonly common: Common;
  readonly network: NetworkFile;
  readonly chainView: ChainView;
  readonly blockByHash: (hash: Uint8Array) => Block | undefined;
}

/**
 * The pending block on an execution worker, made from the {@link PendingContext} the main thread
 * posts: a header-only block over the stored parent's state when it changes nothing, otherwise the
 * block built as the producer would, on a scratch trie database (nothing it writes reaches the
 * store). One of each is kept, by the context's key, so a worker builds a given pending block once.
 */
export class PendingBuilds {
  private readonly executor: BlockExecutor;
  private readonly scratchTrieDb: TrieDatabase;
  private readonly scratchStates: StateFactory;
  private header: { key: string; block: Block } | undefined;
  private build: { key: string; result: Promise<PendingBuild> } | undefined;
  private lastBuilt: PendingBuild | undefined;
  private engine: { key: string; engine: PosEngine } | undefined;

  constructor(private readonly sources: PendingBuildSources) {
    this.scratchTrieDb = new TrieDatabase(sources.kv);
    this.scratchStates = new StateFactory(this.scratchTrieDb, sources.common);
    this.executor = new BlockExecutor(
      sources.common,
      this.scratchStates,
      this.scratchTrieDb,
      sources.chainView,
    );
  }

  /**
   * The scratch trie-node cache, the state carried between builds and the header-only block kept,
   * as `pending_*`, for the metrics.
   */
  boundedStructures(): BoundedStructure[] {
    const headerBlocks: BoundedStructure = {
      name: "header_blocks",
      unit: "entries",
      bound: 1,
      size: () => (this.header ? 1 : 0),
    };
    return prefixed("pending_", [
      ...this.scratchTrieDb.boundedStructures(),
      ...this.executor.boundedStructures(),
      headerBlocks,
    ]);
  }

  /** The block calls at `context` run in: header-only when it changes nothing, else the built block. */
  async callBlock(context: PendingContext): Promise<Block> {
    if (!isHeaderOnly(context)) return (await this.built(context)).block;
    if (this.header?.key === context.key) return this.header.block;
    const block = nextHeaderBlock(
      this.parent(context),
      context.timestamp,
      context.coinbase,
      this.sources.common,
    );
    this.header = { key: context.key, block };
    return block;
  }

  /** The pending block of `context` executed (built once per key). */
  built(context: PendingContext): Promise<PendingBuild> {
    if (this.build?.key !== context.key) {
      const { key } = context;
      const result = this.execute(context);
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

  /** The state after the last built pending block when `block` is it; undefined for any other block. */
  stateOf(block: Block): MerkleStateManager | undefined {
    return block === this.lastBuilt?.block ? this.lastBuilt.state : undefined;
  }

  private parent(context: PendingContext): Block {
    const parent = this.sources.blockByHash(context.parentHash);
    if (!parent) throw new NotFoundError("header not found");
    return parent;
  }

  private async execute(context: PendingContext): Promise<PendingBuild> {
    const parent = this.parent(context);
    const built = await buildPendingBlock(
      this.executor,
      this.engineFor(context.proposers),
      parent,
      receivedCandidates(context.transactions, this.sources.common),
      receivedEdits(context.edits),
      { timestamp: context.timestamp, coinbase: context.coinbase },
    );
    return {
      block: built.block,
      receipts: built.receipts,
      state: this.scratchStates.at(built.block.header.stateRoot, "lru"),
    };
  }

  /**
   * An engine that decides the pending block's proposer as the node's own would (its signers'
   * addresses, offline validators and timeout rule); it never seals, so it holds no keys.
   */
  private engineFor(proposers: PendingProposers | undefined): PosEngine | undefined {
    const { network } = this.sources;
    if (!proposers || !network.consensus || !network.system) return undefined;
    const key = JSON.stringify(proposers);
    if (this.engine?.key !== key) {
      const noKey = new Uint8Array(32);
      const engine = new PosEngine(network, {
        signers: new Map(proposers.signers.map((address) => [address, noKey])),
        offline: proposers.offline,
        waitForTimeouts: proposers.waitForTimeouts,
      });
      this.engine = { key, engine };
    }
    return this.engine.engine;
  }
}
