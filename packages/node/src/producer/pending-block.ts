import type { Block } from "@ethereumjs/block";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { Address, bytesToHex, hexToBytes } from "@ethereumjs/util";
import type { RpcPendingBlock } from "@strata/protocol";
import type { Chain } from "../chain/chain.js";
import type { PosEngine } from "../consensus/engine.js";
import type { BlockExecutor } from "../execution/block/block-executor.js";
import { type RunLimit, runLimit } from "../execution/evm/run-limits.js";
import { formatBlock } from "../rpc/format/block.js";
import type { TxPool } from "../txpool/tx-pool.js";
import type { BlockProducer } from "./block-producer.js";
import {
  buildPendingBlock,
  nextHeaderBlock,
  type PendingBuild,
  type PendingContext,
  postEdits,
} from "./pending-execution.js";

export type { PendingBuild } from "./pending-execution.js";

/** A state read at `pending`: an account's balance, nonce or code, or one storage slot. */
export type PendingRead =
  | { readonly kind: "balance" | "nonce" | "code"; readonly address: string }
  | { readonly kind: "storage"; readonly address: string; readonly slot: Uint8Array };

/** A job about the pending block that execution workers run: a state read, or the block as JSON. */
export type PendingTask =
  | { readonly kind: "pendingRead"; readonly pending: PendingContext; readonly read: PendingRead }
  | { readonly kind: "pendingBlock"; readonly pending: PendingContext; readonly full: boolean };

/** The execution workers the pending block is made on (see {@link CallWorkerPool}). */
export interface PendingOffload {
  hasWorkers(): boolean;
  run(task: PendingTask, limit: RunLimit): Promise<unknown>;
  /** Has the worker the next job goes to make the header-only pending block of `context` ahead of calls in it. */
  preparePending(context: PendingContext): void;
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
  /**
   * Execution workers: when given (and running), the pending block is made there from a
   * {@link PendingContext} and this thread executes nothing; without them (an in-memory chain) it
   * is built here.
   */
  readonly offload?: PendingOffload;
  /** The time budget of a pending build or read on a worker. */
  readonly timeoutMs?: number;
}

/**
 * `pending`: the block the producer would build next: number head + 1, the producer's next
 * timestamp, the next base fee, and the pool's executable transactions and queued dev state edits
 * applied. While the pool holds nothing executable and no edit waits (the usual case under
 * automine) calls get a header-only block over the head's state, which costs no execution at all.
 *
 * With execution workers, calls, estimates and state reads at `pending` are posted to them with a
 * {@link PendingContext} (the parent's hash, the header fields, the transactions' encodings and the
 * edits) and the worker makes the block (built once per context on each worker): the thread that
 * answers requests never runs the pending transactions. Without workers the block is built here,
 * on a scratch trie, once per (head, pool version, edits, timestamp).
 */
export class PendingBlocks {
  private poolVersion = 0;
  /** The header-only block of the head and timestamp it was made for. */
  private header: { head: Block; timestamp: bigint; block: Block } | undefined;
  /** The header-only stand-in of a non-empty pending block whose execution a worker does. */
  private offloaded: { context: PendingContext; block: Block } | undefined;
  /**
   * The context of every header-only block and stand-in handed out while it lives: a call may ask
   * after a newer one replaced it (the clock moved the timestamp, the pool changed).
   */
  private readonly contexts = new WeakMap<Block, { context: PendingContext; standIn: boolean }>();
  private context: PendingContext | undefined;
  private build: { key: string; result: Promise<PendingBuild> } | undefined;
  private lastBuilt: PendingBuild | undefined;
  /** A new head's header-only pending block is to be made once the turn that committed it is over. */
  private preparing = false;

  constructor(private readonly sources: PendingBlockSources) {
    sources.chain.events.on("pendingTransaction", () => {
      this.poolVersion++;
    });
    sources.chain.events.on("newHead", () => this.prepareSoon());
  }

  /** True when the pending block changes nothing in the head's state (no executable transaction, no edit). */
  get isEmpty(): boolean {
    return !this.sources.pool.hasExecutable() && this.sources.producer.edits.isEmpty;
  }

  /**
   * The block calls and estimates at `pending` run in. With workers, a non-empty pending block is
   * given as a header-only stand-in whose {@link contextOf} tells the worker what to build.
   */
  async callBlock(): Promise<Block> {
    if (this.isEmpty) return this.headerBlock();
    if (!this.onWorkers()) return (await this.built()).block;
    const context = this.currentContext();
    if (this.offloaded?.context !== context) {
      const block = this.nextHeader();
      this.contexts.set(block, { context, standIn: true });
      this.offloaded = { context, block };
    }
    return this.offloaded.block;
  }

  /**
   * What a worker needs to run calls in `block` when it is a pending block this object made;
   * undefined for any other block (a stored one).
   */
  contextOf(block: Block): PendingContext | undefined {
    return this.contexts.get(block)?.context;
  }

  /** Whether calls in `block` depend on the pool or edits (their outcomes must not be remembered per block hash). */
  isStandIn(block: Block): boolean {
    return this.contexts.get(block)?.standIn === true;
  }

  /**
   * The block to run calls in on this thread (no worker could take them): the built pending block
   * for a stand-in, else `block` itself.
   */
  async localBlock(block: Block): Promise<Block> {
    return this.isStandIn(block) ? (await this.built()).block : block;
  }

  /** The value of `read` in the state after the pending block (on a worker when there are workers). */
  async read(read: PendingRead): Promise<bigint | Uint8Array> {
    if (this.onWorkers()) {
      const value = await this.sources.offload!.run(
        { kind: "pendingRead", pending: this.currentContext(), read },
        this.limit(),
      );
      if (value !== undefined) return value as bigint | Uint8Array;
    }
    return readState((await this.built()).state, read);
  }

  /** The pending block as `eth_getBlockByNumber("pending")` answers it (made on a worker when there are workers). */
  async formatted(full: boolean): Promise<RpcPendingBlock> {
    if (this.onWorkers()) {
      const value = await this.sources.offload!.run(
        { kind: "pendingBlock", pending: this.currentContext(), full },
        this.limit(),
      );
      if (value !== undefined) return value as RpcPendingBlock;
    }
    return formatPendingBlock(await this.built(), full);
  }

  /** The pending block executed on this thread (a node without execution workers). */
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

  /**
   * Once the turn that committed a new head is over (the sender of its transaction has its answer),
   * makes the header-only pending block calls at `pending` will run in, when the pool holds nothing
   * executable and no edit waits, and has the execution worker the next job goes to make it too: a
   * dApp estimates its next transaction right after a block, and finds both ready. Heads committed
   * in one turn are prepared for once.
   */
  private prepareSoon(): void {
    if (this.preparing) return;
    this.preparing = true;
    setImmediate(() => {
      this.preparing = false;
      try {
        if (!this.isEmpty) return;
        const block = this.headerBlock();
        // Jobs name the block by its hash, worked out once per header.
        block.hash();
        const context = this.contexts.get(block)?.context;
        if (context && this.onWorkers()) this.sources.offload!.preparePending(context);
      } catch {
        // Only a head start: the first call at `pending` makes the block, and reports what fails.
      }
    });
  }

  private onWorkers(): boolean {
    return this.sources.offload?.hasWorkers() === true;
  }

  private limit(): RunLimit {
    return runLimit(this.sources.timeoutMs ?? Number.POSITIVE_INFINITY);
  }

  /** The next block's header over the head's state, for calls when the pending block holds nothing. */
  private headerBlock(): Block {
    const { chain, producer, coinbase } = this.sources;
    const head = chain.head;
    const timestamp = producer.pendingTimestamp();
    if (this.header?.head === head && this.header.timestamp === timestamp) return this.header.block;
    const key = `${bytesToHex(head.hash())}:${timestamp}`;
    const block = this.nextHeader();
    // What a worker needs for calls in it: the parent and the header fields, nothing to execute.
    const context: PendingContext = {
      key: `${key}:header`,
      parentHash: chain.head.hash(),
      timestamp,
      coinbase,
      transactions: [],
      edits: [],
      proposers: this.proposers(),
    };
    this.contexts.set(block, { context, standIn: false });
    this.header = { head, timestamp, block };
    return block;
  }

  private nextHeader(): Block {
    const { chain, producer, coinbase } = this.sources;
    return nextHeaderBlock(chain.head, producer.pendingTimestamp(), coinbase, chain.common);
  }

  /** What a worker needs to make the pending block as it stands now (kept while nothing changes). */
  private currentContext(): PendingContext {
    const { chain, pool, producer, coinbase } = this.sources;
    const parent = chain.head;
    const timestamp = producer.pendingTimestamp();
    const key = `${bytesToHex(parent.hash())}:${this.poolVersion}:${pool.size}:${producer.edits.revision}:${timestamp}`;
    if (this.context?.key === key) return this.context;
    const candidates = pool.hasExecutable() ? pool.executable(parent.header.calcNextBaseFee()) : [];
    this.context = {
      key,
      parentHash: parent.hash(),
      timestamp,
      coinbase,
      transactions: candidates.map(({ tx, senderAddress }) => ({
        raw: tx.serialize(),
        sender: senderAddress.bytes,
      })),
      edits: postEdits(producer.edits.peek()),
      proposers: this.proposers(),
    };
    return this.context;
  }

  private proposers(): PendingContext["proposers"] {
    const { engine } = this.sources;
    if (!engine) return undefined;
    return {
      signers: engine.signers,
      offline: engine.offlineValidators,
      waitForTimeouts: engine.waitsForTurn,
    };
  }

  private async execute(timestamp: bigint): Promise<PendingBuild> {
    const { chain, pool, producer, executor, coinbase, engine } = this.sources;
    const parent = chain.head;
    const candidates = pool.executable(parent.header.calcNextBaseFee());
    const built = await buildPendingBlock(executor, engine, parent, candidates, producer.edits.peek(), {
      timestamp,
      coinbase,
    });
    return {
      block: built.block,
      receipts: built.receipts,
      state: this.sources.scratchState(built.block.header.stateRoot),
    };
  }
}

/** The value of `read` in `state`. */
export async function readState(state: MerkleStateManager, read: PendingRead): Promise<bigint | Uint8Array> {
  const address = new Address(hexToBytes(read.address as `0x${string}`));
  switch (read.kind) {
    case "balance":
      return (await state.getAccount(address))?.balance ?? 0n;
    case "nonce":
      return (await state.getAccount(address))?.nonce ?? 0n;
    case "code":
      return state.getCode(address);
    case "storage":
      return state.getStorage(address, read.slot);
  }
}

/** A pending block as `eth_getBlockByNumber("pending")` answers it: as geth, unsealed, so no hash, nonce or miner. */
export function formatPendingBlock(built: PendingBuild, full: boolean): RpcPendingBlock {
  return { ...formatBlock(built.block, full, built.receipts), hash: null, nonce: null, miner: null };
}
