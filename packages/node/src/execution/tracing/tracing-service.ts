import { type Block, createBlock } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import type { TypedTransaction } from "@ethereumjs/tx";
import { Address, bytesToHex } from "@ethereumjs/util";
import { createVM, runTx, type VM } from "@ethereumjs/vm";
import type { CallRequest, StateOverrides, TraceOptions } from "@strata/protocol";
import { keccak256 } from "../../crypto/keccak.js";
import {
  BusyError,
  DomainError,
  ExecutionError,
  NotFoundError,
  RunStoppedError,
} from "../../errors/domain-errors.js";
import type { ChainStore } from "../../storage/chain-store.js";
import type { StoredReceipt } from "../../storage/records.js";
import type { BlockContext, BlockHooks, BlockTemplate } from "../block/block-executor.js";
import { receiptsCarryStateRoot } from "../block/block-replay.js";
import { headerDataOf } from "../block/header-data.js";
import { StreamingBlockBuilder } from "../block/streaming-block-builder.js";
import type { ChainView } from "../evm/chain-view.js";
import { checkRunLimit, enforceRunLimits, limitEvm, type RunLimit, runLimit } from "../evm/run-limits.js";
import { OverlayStateManager } from "../state/overlay-state.js";
import { scratchState } from "../state/scratch-state.js";
import { applyStartOfBlockWrites, WarmStates } from "../state/state-carry.js";
import { applyStateEdits } from "../state/state-edits.js";
import type { StateFactory } from "../state/state-factory.js";
import type { CallFrame } from "./call-tracer.js";
import { CallTracer } from "./call-tracer.js";
import { callTransaction } from "./call-tx.js";
import { runWithTracer } from "./evm-hooks.js";
import { applyTraceOverrides } from "./state-overrides.js";
import { createTracer, DEFAULT_TRACE_LIMITS, type TraceLimits, traceTimeoutMs } from "./trace-options.js";
import type { Tracer } from "./tracer.js";

/** One entry of a block trace (geth's `txTraceResult`). */
export interface BlockTraceEntry {
  readonly txHash: string;
  readonly result?: unknown;
  readonly error?: string;
}

/** The deployment of a contract: the transaction and the account whose frame created it. */
export interface ContractCreation {
  readonly hash: string;
  readonly creator: string;
}

/** What tracing reads: the stored chain and the state after any stored block (the node's `Chain` is one). */
export interface TraceSource {
  readonly common: Common;
  readonly store: ChainStore;
  blockByHash(hash: Uint8Array): Block | undefined;
  /** The (read-only) state after `block`, from a cache where there is one. */
  stateAt(block: Block): MerkleStateManager;
  /** Opens the state at any stored root. */
  readonly states: StateFactory;
  /** Read-only states with caches shared with other execution (an execution worker's); else traces keep their own. */
  readonly warmStates?: WarmStates;
}

/** Recent pre-states kept with their caches: traces mostly replay the last few blocks, again and again. */
const WARM_STATES = 4;

/** The consensus steps of a stored block, to replay its start-of-block system calls. */
export type ReplayHooksProvider = (block: Block) => BlockHooks;

interface Replay {
  readonly vm: VM;
  readonly builder: StreamingBlockBuilder;
}

/** A replay of a block kept between traces, standing before its transaction `next`. */
interface ReplayPosition {
  readonly replay: Replay;
  readonly receipts: readonly StoredReceipt[];
  readonly transactions: readonly TypedTransaction[];
  next: number;
  /** How many logs the transactions before `next` emitted. */
  logIndexBase: number;
}

/**
 * Replays kept between traces, each standing before the last transaction traced in its block: a
 * trace of a transaction at or after it (the same one again, the next one of the block) starts
 * there instead of from the block's parent state and system calls.
 */
const KEPT_REPLAYS = 4;

/**
 * Idle VMs kept per rules for the next replay or traced call: making a VM (its opcode table, its
 * journal and loggers) costs about a tenth of a small block's first trace.
 */
const IDLE_VMS = 2;

/**
 * Traces mined transactions by re-executing their block on its parent's state up to them (the
 * block's system calls included), and calls on any block's state, with geth's tracers. Runs are
 * serialised; one that waited longer than `maxQueueWaitMs` for its turn is refused. Every run is
 * bounded by a {@link RunLimit} checked inside the interpreter (default: the node's trace timeout
 * from now), each traced transaction by the client's `timeout` capped at the node's maximum, and
 * struct-logger output by the node's caps.
 */
export class TracingService {
  private lock: Promise<unknown> = Promise.resolve();
  private readonly forkCommons = new Map<string, Common>();
  private readonly warm: WarmStates;
  /** Replays kept by block hash, the most recent last (see {@link KEPT_REPLAYS}). */
  private readonly positions = new Map<string, ReplayPosition>();
  /** VMs on an overlay that a finished run left, by rules (see {@link IDLE_VMS}). */
  private readonly idleVms = new Map<Common, VM[]>();
  /** The overlay and rules of each VM made here on an overlay (the VMs that can serve again). */
  private readonly reusable = new WeakMap<
    VM,
    { readonly overlay: OverlayStateManager; readonly common: Common }
  >();

  constructor(
    private readonly chain: TraceSource,
    private readonly chainView: ChainView,
    private readonly gasCap: bigint,
    private readonly maxQueueWaitMs: number,
    private readonly replayHooks?: ReplayHooksProvider,
    private readonly limits: TraceLimits = DEFAULT_TRACE_LIMITS,
  ) {
    this.warm = chain.warmStates ?? new WarmStates(chain.states, WARM_STATES);
  }

  /** Traces the mined transaction `hash` with the tracer `options` name (geth's `debug_traceTransaction`). */
  traceTransaction(hash: Uint8Array, options: TraceOptions, limit?: RunLimit): Promise<unknown> {
    const make = () => createTracer(options, this.chain.common, this.limits);
    return this.traceMined(hash, make, traceTimeoutMs(options, this.limits.timeoutMs), limit);
  }

  /** Re-executes the mined transaction `hash` with a tracer made by `make`, and returns that tracer. */
  traceMined<T extends Tracer>(
    hash: Uint8Array,
    make: () => T,
    timeoutMs = this.limits.timeoutMs,
    limit = this.defaultLimit(),
  ): Promise<unknown> {
    const location = this.chain.store.txLocation(hash);
    const block = location ? this.chain.blockByHash(location.blockHash) : undefined;
    if (!location || !block) throw new NotFoundError("transaction not found");
    const tracer = make();
    return this.serialised(limit, async () => {
      const key = bytesToHex(block.hash());
      try {
        const position = await this.positionBefore(block, location.index, limit);
        const tx = position.transactions[location.index]!;
        await position.replay.builder.withoutKeeping(() =>
          this.traceInBlock(position.replay, block, tx, tracer, position.logIndexBase, timeoutMs),
        );
        return tracer.result();
      } catch (error) {
        // A run that stopped part way may leave the replayed state anywhere.
        this.positions.delete(key);
        throw error;
      }
    });
  }

  /**
   * A replay of `block` standing just before its transaction `index`: one kept from an earlier trace
   * of the block when it stands at or before it (moved forward), else a new one.
   */
  private async positionBefore(block: Block, index: number, limit: RunLimit): Promise<ReplayPosition> {
    const key = bytesToHex(block.hash());
    let position = this.positions.get(key);
    this.positions.delete(key);
    if (position && position.next <= index) limitEvm(position.replay.vm.evm, limit);
    else {
      // A replay already past the transaction is of no more use.
      if (position) this.release(position.replay.vm);
      const receipts = this.chain.store.receipts(block.hash()) ?? [];
      const replay = await this.replay(block, limit);
      position = {
        replay,
        receipts,
        transactions: this.transactionsOf(block, receipts),
        next: 0,
        logIndexBase: 0,
      };
    }
    for (; position.next < index; position.next++) {
      await position.replay.builder.addTransaction(position.transactions[position.next]!);
      position.logIndexBase += position.receipts[position.next]?.logs.length ?? 0;
    }
    this.positions.set(key, position);
    if (this.positions.size > KEPT_REPLAYS) {
      const oldest = this.positions.keys().next().value!;
      this.release(this.positions.get(oldest)!.replay.vm);
      this.positions.delete(oldest);
    }
    return position;
  }

  /**
   * The transaction of `block` whose call tree creates `address`, and the frame's sender: the
   * block is replayed once, with a call tracer per transaction, up to the first that creates it.
   */
  findCreation(block: Block, address: string, limit = this.defaultLimit()): Promise<ContractCreation | null> {
    if (block.header.number === 0n) return Promise.resolve(null);
    return this.serialised(limit, async () => {
      const replay = await this.replay(block, limit);
      const transactions = this.transactionsOf(block, this.chain.store.receipts(block.hash()) ?? []);
      let found: ContractCreation | null = null;
      for (let i = 0; i < transactions.length && !found; i++) {
        const tracer = new CallTracer();
        await this.traceInBlock(replay, block, transactions[i]!, tracer, 0, this.limits.timeoutMs);
        const creation = findCreationFrame(tracer.result() as CallFrame, address);
        if (creation) found = { hash: bytesToHex(block.transactions[i]!.hash()), creator: creation.from };
      }
      this.release(replay.vm);
      return found;
    });
  }

  /** Traces every transaction of `block` (geth's `debug_traceBlockByNumber/ByHash`). */
  traceBlock(block: Block, options: TraceOptions, limit = this.defaultLimit()): Promise<BlockTraceEntry[]> {
    if (block.header.number === 0n) throw new ExecutionError("genesis is not traceable");
    const timeoutMs = traceTimeoutMs(options, this.limits.timeoutMs);
    createTracer(options, this.chain.common, this.limits);
    return this.serialised(limit, async () => {
      const replay = await this.replay(block, limit);
      const receipts = this.chain.store.receipts(block.hash()) ?? [];
      const transactions = this.transactionsOf(block, receipts);
      const entries: BlockTraceEntry[] = [];
      let logIndexBase = 0;
      let refused = false;
      for (let i = 0; i < transactions.length; i++) {
        checkRunLimit(limit);
        const txHash = bytesToHex(transactions[i]!.hash());
        const tracer = createTracer(options, this.chain.common, this.limits);
        try {
          await this.traceInBlock(replay, block, transactions[i]!, tracer, logIndexBase, timeoutMs);
          entries.push({ txHash, result: tracer.result() });
        } catch (error) {
          // After an aborted run the replayed state is unusable: only refusals are reported per entry.
          if (error instanceof RunStoppedError || !(error instanceof ExecutionError)) throw error;
          entries.push({ txHash, error: error.message });
          refused = true;
        }
        logIndexBase += receipts[i]?.logs.length ?? 0;
      }
      // A refusal may have ended a run part way: its VM is not used again.
      if (!refused) this.release(replay.vm);
      return entries;
    });
  }

  /**
   * Traces `request` executed on the state after `block` (with `overrides` applied), in `block`'s
   * context (geth's `debug_traceCall`).
   */
  traceCall(
    request: CallRequest,
    block: Block,
    options: TraceOptions,
    overrides?: StateOverrides,
    limit = this.defaultLimit(),
  ): Promise<unknown> {
    const tracer = createTracer(options, this.chain.common, this.limits);
    const timeoutMs = traceTimeoutMs(options, this.limits.timeoutMs);
    return this.serialised(limit, async () => {
      const vm = await this.vmAt(block, block, limit);
      // The overrides land in the throwaway overlay and vanish with it.
      await applyTraceOverrides(vm.stateManager, overrides);
      const paysFee = (request.gasPrice ?? request.maxFeePerGas ?? 0n) > 0n;
      const context = paysFee
        ? block
        : createBlock(
            { header: { ...headerDataOf(block.header), baseFeePerGas: 0n } },
            { common: vm.common, setHardfork: false, skipConsensusFormatValidation: true },
          );
      const requested = request.gas ?? this.gasCap;
      const gas = this.gasCap > 0n && requested > this.gasCap ? this.gasCap : requested;
      const { tx, sender } = callTransaction(request, gas, vm.common, context.header.baseFeePerGas ?? 0n);
      const traced = {
        tx,
        sender,
        coinbase: block.header.coinbase,
        logIndexBase: 0,
        deadline: performance.now() + timeoutMs,
      };
      await runWithTracer(vm, tracer, traced, () =>
        runTx(vm, {
          tx,
          block: context,
          skipNonce: true,
          skipBlockGasLimitValidation: true,
          skipHardForkValidation: true,
        }),
      ).catch(rethrowTracing);
      this.release(vm);
      return tracer.result();
    });
  }

  private async traceInBlock(
    replay: Replay,
    block: Block,
    tx: TypedTransaction,
    tracer: Tracer,
    logIndexBase: number,
    timeoutMs: number,
  ): Promise<void> {
    const traced = {
      tx,
      sender: tx.getSenderAddress(),
      coinbase: block.header.coinbase,
      logIndexBase,
      deadline: performance.now() + timeoutMs,
    };
    await runWithTracer(replay.vm, tracer, traced, () => replay.builder.addTransaction(tx)).catch(
      rethrowTracing,
    );
  }

  /**
   * `block`'s transactions, each answering `getSenderAddress()` with the sender its receipt holds:
   * a replay then recovers no signature (the pure-JS recovery of this thread costs about as much as
   * running a small transaction). Kept with the block object.
   */
  private transactionsOf(block: Block, receipts: readonly StoredReceipt[]): readonly TypedTransaction[] {
    let transactions = knownSenders.get(block);
    if (!transactions) {
      if (receipts.length !== block.transactions.length) return block.transactions;
      transactions = block.transactions.map((tx, i) => withSender(tx, new Address(receipts[i]!.sender)));
      knownSenders.set(block, transactions);
    }
    return transactions;
  }

  /**
   * A VM on a throwaway overlay of `block`'s parent state, with the block's start-of-block steps
   * applied: run again (the system calls, then the dev methods' state edits the block stored), or
   * their writes put back when the block's step carries them.
   */
  private async replay(block: Block, limit: RunLimit): Promise<Replay> {
    const parent = this.chain.blockByHash(block.header.parentHash);
    if (!parent) throw new ExecutionError(`parent block ${bytesToHex(block.header.parentHash)} not found`);
    const vm = await this.vmAt(parent, block, limit);
    // What the block's start-of-block steps wrote, as the node that built it noted: put back, not rerun.
    const startWrites = this.warm.startWritesOf(block.hash());
    const hooks = startWrites ? undefined : this.replayHooks?.(block);
    const header = block.header;
    const proposed: BlockTemplate = {
      timestamp: header.timestamp,
      coinbase: header.coinbase.bytes,
      extraData: header.extraData,
    };
    const template = hooks ? await hooks.prepare(vm, parent, proposed) : proposed;
    const builder = await StreamingBlockBuilder.start(vm, {
      parentBlock: parent,
      // extraData (which may carry a seal longer than a header allows) plays no part in execution.
      headerData: { ...headerDataOf(header), gasUsed: 0n, extraData: new Uint8Array() },
      blockOpts: { putBlockIntoBlockchain: false, setHardfork: false },
    });
    const context: BlockContext = {
      vm,
      parent,
      number: header.number,
      timestamp: template.timestamp,
      coinbase: template.coinbase,
      mixHash: header.mixHash,
      gasLimit: header.gasLimit,
      baseFeePerGas: header.baseFeePerGas ?? 0n,
    };
    if (startWrites) await applyStartOfBlockWrites(vm.stateManager, startWrites);
    else {
      await hooks?.beforeTransactions(context);
      // The dev methods' edits the block applied after its system calls (their writes are part of
      // `startWrites` when the step carries them).
      const edits = this.chain.store.stateEdits(block.hash());
      if (edits) await applyStateEdits(vm.stateManager, edits);
    }
    return { vm, builder };
  }

  /**
   * A VM over a throwaway copy of the state after `stateBlock`, with the rules of `rulesBlock`: an
   * overlay, or, for blocks before Byzantium (whose receipts need the state root after every
   * transaction), a scratch trie that computes roots without writing to the node's storage.
   */
  private async vmAt(stateBlock: Block, rulesBlock: Block, limit: RunLimit): Promise<VM> {
    const common = this.rulesOf(rulesBlock);
    const root = stateBlock.header.stateRoot;
    const base = this.warmState(stateBlock);
    await enforceRunLimits();
    let vm: VM;
    if (receiptsCarryStateRoot(rulesBlock, common)) {
      vm = await createVM({
        common,
        stateManager: scratchState(base, root, common),
        blockchain: this.chainView,
      });
    } else {
      const idle = this.idleVms.get(common)?.pop();
      if (idle) {
        this.reusable.get(idle)!.overlay.rebase(base);
        // What the last run left in the journal (a replay's open checkpoint) goes with its writes.
        idle.evm.journal.cleanJournal();
      }
      vm = idle ?? (await this.overlayVm(common, base));
    }
    // A run's limit stays with its VM until the VM's next run sets its own.
    limitEvm(vm.evm, limit);
    return vm;
  }

  /** A VM under `common`'s rules on an overlay of `base`, which can be based on another state later. */
  private async overlayVm(common: Common, base: MerkleStateManager): Promise<VM> {
    const overlay = new OverlayStateManager(base, keccak256);
    const vm = await createVM({ common, stateManager: overlay, blockchain: this.chainView });
    this.reusable.set(vm, { overlay, common });
    return vm;
  }

  /**
   * Keeps `vm` for the next run under its rules, when it is on an overlay and fewer than
   * {@link IDLE_VMS} wait: only a VM whose last run ended (a stopped run leaves frames behind).
   */
  private release(vm: VM): void {
    const common = this.reusable.get(vm)?.common;
    if (!common) return;
    const idle = this.idleVms.get(common) ?? [];
    this.idleVms.set(common, idle);
    if (idle.length < IDLE_VMS) idle.push(vm);
  }

  /**
   * The read-only state after `block` with account, code and storage caches, kept for the last
   * {@link WARM_STATES} roots asked for (only read: every run writes to an overlay over it).
   */
  private warmState(block: Block): MerkleStateManager {
    return this.warm.at(block.header.stateRoot);
  }

  /** The rules `block` executes under: one Common per fork, made once (copying one costs more than a trace). */
  private rulesOf(block: Block): Common {
    const { number, timestamp } = block.header;
    const hardfork = this.chain.common.getHardforkBy({ blockNumber: number, timestamp });
    let rules = this.forkCommons.get(hardfork);
    if (!rules) {
      rules = this.chain.common.copy();
      rules.setHardfork(hardfork);
      this.forkCommons.set(hardfork, rules);
    }
    return rules;
  }

  private defaultLimit(): RunLimit {
    return runLimit(this.limits.timeoutMs);
  }

  private serialised<T>(limit: RunLimit, work: () => Promise<T>): Promise<T> {
    const enqueuedAt = performance.now();
    const job = this.lock.then(() => {
      const waited = performance.now() - enqueuedAt;
      if (waited > this.maxQueueWaitMs) {
        throw new BusyError(`execution queue wait exceeded ${this.maxQueueWaitMs} ms`, Math.ceil(waited));
      }
      checkRunLimit(limit);
      return work();
    });
    this.lock = job.catch(() => {});
    return job;
  }
}

/** Stored blocks' transactions with their senders from the receipts, while the block object lives. */
const knownSenders = new WeakMap<Block, readonly TypedTransaction[]>();

/**
 * `tx` answering `getSenderAddress()` with `sender`: an object whose prototype is `tx` (a decoded
 * transaction is frozen, so the method cannot be set on it), frozen too so that @ethereumjs keeps
 * caching its hash and data fee (in the cache object the two share).
 */
function withSender(tx: TypedTransaction, sender: Address): TypedTransaction {
  return Object.freeze(Object.create(tx, { getSenderAddress: { value: () => sender } })) as TypedTransaction;
}

/** The frame of `tree` (depth first) that created `address` and did not fail. */
function findCreationFrame(frame: CallFrame, address: string): CallFrame | undefined {
  if ((frame.type === "CREATE" || frame.type === "CREATE2") && frame.to === address && !frame.error)
    return frame;
  for (const child of frame.calls ?? []) {
    const found = findCreationFrame(child, address);
    if (found) return found;
  }
  return undefined;
}

/** Domain errors pass through; a transaction the VM refuses becomes geth's "tracing failed: ...". */
function rethrowTracing(error: unknown): never {
  if (error instanceof DomainError) throw error;
  const message = error instanceof Error ? error.message : String(error);
  throw new ExecutionError(`tracing failed: ${message.replace(/\s*\(tx type=.*$/s, "")}`);
}
