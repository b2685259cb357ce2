import { setTimeout as sleep } from "node:timers/promises";
import type { Block } from "@ethereumjs/block";
import type { Logger } from "pino";
import type { Chain } from "../chain/chain.js";
import type { MiningMode } from "../config/node-config.js";
import type { PosEngine } from "../consensus/engine.js";
import { NoProposerError, NotYourTurnError } from "../consensus/errors.js";
import type { BlockExecutor, BuiltBlock } from "../execution/block/block-executor.js";
import type { RecordedCallTraces } from "../execution/tracing/recorded-call-traces.js";
import type { TxPool } from "../txpool/tx-pool.js";
import type { DevStateEdits } from "./dev-state-edits.js";

/** Settings of the block producer. */
export interface ProducerOptions {
  readonly mode: MiningMode;
  readonly blockTimeSeconds: number;
  readonly coinbase: Uint8Array;
  /** Proof-of-stake engine that picks the proposer and seals; without it blocks carry `coinbase` and no seal. */
  readonly engine?: PosEngine;
  /** The dev methods' state edits (shared with the pool, which counts them when it admits transactions). */
  readonly edits: DevStateEdits;
  /** Where the call traces of mined transactions are recorded (dev networks). */
  readonly callTraces?: RecordedCallTraces;
}

/** The clock of block timestamps at one moment (dev: kept by `evm_snapshot`). */
export interface DevClock {
  /** What the clock read. */
  readonly now: bigint;
  /** The timestamp set for the next block, if any. */
  readonly nextTimestamp: bigint | undefined;
}

/** Asked before each interval block: false holds production (a node catching up with its peers). */
export type ProposeGate = () => boolean;

/** How often a validator among others checks whether its turn has come, in interval mode. */
const VALIDATOR_TICK_MS = 250;

/**
 * Most empty blocks of one `mine` call committed in one storage transaction (their trie nodes wait
 * in memory until then).
 */
export const MAX_RUN_BLOCKS = 256;

/** A `notBefore` that never comes: wait for the next head. */
const NEVER = 2n ** 63n;

/** Longest an instant-mode block waits for more transactions when they arrive faster than blocks are built. */
const MAX_GATHER_MS = 50;

/**
 * Produces blocks from the pool: `instant` mines as soon as transactions arrive (everything pending
 * at that moment goes into one block; under a stream of transactions, each block first waits as long
 * as the previous one took to build), `interval` every block time (empty blocks included), `manual`
 * only when {@link BlockProducer.mine} is called. Blocks are built one at a time. On dev networks
 * automine and interval mining can be switched at run time (`evm_setAutomine`,
 * `evm_setIntervalMining`), the clock moved (`evm_increaseTime`, `evm_setNextBlockTimestamp`) and
 * state edits queued for the next block ({@link BlockProducer.edits}).
 */
export class BlockProducer {
  /** State edits of the dev methods, applied at the start of the next block. */
  readonly edits: DevStateEdits;
  private queue: Promise<unknown> = Promise.resolve();
  private scheduled = false;
  /** The automine loop is building blocks. */
  private running = false;
  /** The block an idle automine producer is about to build: resolves once it is committed. */
  private upcoming: { promise: Promise<void>; resolve: () => void } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private unsubscribeHead: (() => void) | undefined;
  private nextTimestamp: bigint | undefined;
  /** Seconds added to the wall clock for block timestamps (dev: `evm_increaseTime`). */
  private timeOffset = 0n;
  private automine: boolean;
  private intervalMs: number;
  private stopped = true;
  private gate: ProposeGate | undefined;
  /** When the current head was adopted (interval mode), for fallback timeouts. */
  private headSeenAtMs = 0;
  /** No local validator was in the proposer rotation at the last attempt (logged once). */
  private outOfRotation = false;
  /** The head on which this validator's turn has not come yet, and when it comes. */
  private waiting: { readonly parent: Block; readonly notBefore: bigint } | undefined;

  constructor(
    private readonly chain: Chain,
    private readonly pool: TxPool,
    private readonly executor: BlockExecutor,
    private readonly options: ProducerOptions,
    private readonly log: Logger,
  ) {
    this.edits = options.edits;
    this.automine = options.mode === "instant";
    this.intervalMs = options.mode === "interval" ? options.blockTimeSeconds * 1000 : 0;
  }

  /** Starts producing according to the mode. */
  start(): void {
    this.stopped = false;
    this.unsubscribe = this.chain.events.on("pendingTransaction", () => {
      if (this.automine) this.schedule();
    });
    if (this.automine && this.pool.size > 0) this.schedule();
    this.headSeenAtMs = Date.now();
    this.unsubscribeHead = this.chain.events.on("newHead", () => {
      this.headSeenAtMs = Date.now();
    });
    this.startTimer();
  }

  /** Stops producing and waits for a block being built to be committed. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribeHead?.();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.queue.catch(() => {});
  }

  /** True when transactions are mined as they arrive. */
  get isAutomine(): boolean {
    return this.automine;
  }

  /** Milliseconds between interval blocks; 0 when interval mining is off. */
  get miningIntervalMs(): number {
    return this.intervalMs;
  }

  /** Turns mining on arrival on or off (dev: `evm_setAutomine`). */
  setAutomine(on: boolean): void {
    this.automine = on;
    if (on && !this.stopped && this.pool.hasExecutable()) this.schedule();
  }

  /** Mines a block every `ms` milliseconds, or never on a timer when 0 (dev: `evm_setIntervalMining`). */
  setIntervalMining(ms: number): void {
    this.intervalMs = ms;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (!this.stopped) this.startTimer();
  }

  /**
   * Runs `task` between block builds, so that no block is built or committed meanwhile: blocks from
   * peers are verified and committed through here.
   */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => {});
    return run;
  }

  /** Holds interval production while `gate` says no (the p2p network while the node catches up). */
  setProposeGate(gate: ProposeGate): void {
    this.gate = gate;
  }

  private tick(): void {
    if (this.gate && !this.gate()) {
      this.log.debug("not proposing while catching up with peers");
      return;
    }
    const head = this.chain.head;
    const waiting = this.waiting;
    if (waiting && waiting.parent === head && BigInt(Math.floor(Date.now() / 1000)) < waiting.notBefore)
      return;
    void this.mine(1).then(
      () => {
        this.outOfRotation = false;
      },
      (error: unknown) => {
        // A validator waiting for its turn (or another validator's block) is not an error.
        if (error instanceof NotYourTurnError) {
          this.waiting = { parent: head, notBefore: error.notBefore };
          this.log.debug(
            { number: Number(head.header.number) + 1, notBefore: Number(error.notBefore) },
            "waiting for turn",
          );
        } else if (error instanceof NoProposerError) {
          // Jailed or not an active validator: nothing to seal on this head. Said once, not per tick.
          this.waiting = { parent: head, notBefore: NEVER };
          if (!this.outOfRotation) this.log.info(error.message);
          this.outOfRotation = true;
        } else this.log.warn({ err: error }, "block production failed");
      },
    );
  }

  /** Sets the timestamp of the next block (dev networks); later blocks continue from it. */
  setNextTimestamp(timestamp: bigint): void {
    this.nextTimestamp = timestamp;
  }

  /** Moves the clock of block timestamps forward by `seconds`; returns the total offset (dev: `evm_increaseTime`). */
  increaseTime(seconds: bigint): bigint {
    this.timeOffset += seconds;
    return this.timeOffset;
  }

  /** The clock of block timestamps as it reads now, and the timestamp set for the next block (dev: `evm_snapshot`). */
  clockState(): DevClock {
    return { now: this.clock(), nextTimestamp: this.nextTimestamp };
  }

  /**
   * Sets the clock back to read what `state` read, continuing from there, with its next timestamp
   * (dev: `evm_revert`, as Hardhat).
   */
  restoreClock(state: DevClock): void {
    this.timeOffset = state.now - wallClock();
    this.nextTimestamp = state.nextTimestamp;
  }

  /** Puts the clock back on the wall clock and clears the next timestamp (dev: `anvil_reset`). */
  resetClock(): void {
    this.timeOffset = 0n;
    this.nextTimestamp = undefined;
  }

  /**
   * The timestamp the next block will carry: the one set for it, else the (offset) clock, or on an
   * interval the head's plus the interval when that is later; always after the head's.
   */
  pendingTimestamp(): bigint {
    return this.timestampOn(this.chain.head.header.timestamp, this.nextTimestamp);
  }

  /**
   * The commit of the block an idle automine producer is about to build, which holds every
   * transaction added so far; undefined when blocks are already being built (a stream of
   * transactions: they are batched) or automine is off.
   */
  upcomingBlock(): Promise<void> | undefined {
    return this.upcoming?.promise;
  }

  /**
   * Mines `count` blocks (empty if the pool has nothing executable) and resolves once they are
   * committed. With `intervalSeconds`, each block after the first is stamped that long after the
   * one before it. While nothing is executable and no edit waits, blocks are built in runs of empty
   * blocks committed in one storage transaction each (docs/rpc-methods.md, "Mining many blocks"):
   * a run is written on the store's thread while the next is built on it, and announced once written.
   */
  mine(count = 1, intervalSeconds?: bigint): Promise<void> {
    const run = this.queue.then(async () => {
      let mined = 0;
      let committing: { readonly head: Block; readonly done: Promise<void> } | undefined;
      try {
        while (mined < count) {
          if (count - mined > 1 && !this.pool.hasExecutable() && this.edits.isEmpty) {
            const length = Math.min(count - mined, MAX_RUN_BLOCKS);
            const parent = committing?.head ?? this.chain.head;
            const run = await this.buildEmptyRun(parent, length, mined === 0, intervalSeconds);
            await committing?.done;
            // A run's last block is stamped by the clock unless an interval was given.
            const done = this.commitEmptyRun(run, intervalSeconds !== undefined);
            // Awaited before the next run is committed, or on a failure; handled from now on.
            done.catch(() => undefined);
            committing = { head: run[run.length - 1]!.block, done };
            mined += length;
          } else {
            await committing?.done;
            committing = undefined;
            if (mined > 0 && intervalSeconds !== undefined)
              this.nextTimestamp = this.chain.head.header.timestamp + intervalSeconds;
            await this.produceOne();
            mined++;
          }
        }
        await committing?.done;
      } catch (error) {
        // A run still being written lands (or fails) before the failure is reported.
        await committing?.done.catch(() => undefined);
        throw error;
      }
    });
    this.queue = run.catch(() => {});
    return run;
  }

  /**
   * Mines a block with no other purpose than applying the queued state edits, when automine is on
   * (so reads at `latest` see them at once, as on Hardhat and anvil); otherwise they wait for the
   * next block.
   */
  async applyEdits(): Promise<void> {
    if (this.automine && !this.edits.isEmpty) await this.mine(1);
  }

  private clock(): bigint {
    return wallClock() + this.timeOffset;
  }

  /**
   * The timestamp of a block on a parent stamped `parent`: `chosen` when given, else the (offset)
   * clock, or on an interval the parent's plus the interval when that is later; always after the
   * parent's.
   */
  private timestampOn(parent: bigint, chosen: bigint | undefined): bigint {
    let wanted = chosen ?? this.clock();
    if (chosen === undefined && this.intervalMs > 0 && !this.automine) {
      const onInterval = parent + BigInt(Math.max(1, Math.round(this.intervalMs / 1000)));
      if (onInterval > wanted) wanted = onInterval;
    }
    return wanted > parent ? wanted : parent + 1n;
  }

  /** As Hardhat: after a block with a chosen timestamp, the clock continues from it. */
  private continueClockFrom(block: Block): void {
    this.timeOffset = block.header.timestamp - wallClock();
  }

  private startTimer(): void {
    if (this.intervalMs <= 0) return;
    // A validator among others looks often whether its slot (or a fallback's) has come, since
    // another validator's block may arrive at any moment; a lone producer ticks every interval.
    const tickMs = this.options.engine?.waitsForTurn ? VALIDATOR_TICK_MS : this.intervalMs;
    this.timer = setInterval(() => this.tick(), tickMs);
  }

  private schedule(): void {
    if (!this.running) {
      if (!this.upcoming) {
        let resolve!: () => void;
        const promise = new Promise<void>((r) => {
          resolve = r;
        });
        this.upcoming = { promise, resolve };
      }
    }
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const run = this.queue.then(async () => {
        this.running = true;
        let upcoming = this.upcoming;
        this.upcoming = undefined;
        try {
          let lastBuildMs: number | undefined;
          while (!this.stopped && this.automine && this.pool.hasExecutable()) {
            // Transactions arrived while the last block was built: the load is a stream. The next
            // block waits as long as the last one took (at most MAX_GATHER_MS), so blocks grow with
            // the load and their fixed cost (system calls, roots, the store) is paid less often. A
            // transaction reaching an idle producer is mined at once.
            if (lastBuildMs !== undefined) await sleep(Math.min(lastBuildMs, MAX_GATHER_MS));
            if (this.stopped || !this.pool.hasExecutable()) break;
            const started = performance.now();
            const included = await this.produceOne();
            upcoming?.resolve();
            upcoming = undefined;
            if (included === 0) break;
            lastBuildMs = performance.now() - started;
          }
        } finally {
          this.running = false;
          upcoming?.resolve();
        }
      });
      this.queue = run.catch((error: unknown) => this.log.error({ err: error }, "block production failed"));
    });
  }

  /** Builds and commits one block; returns how many transactions it holds. */
  private async produceOne(): Promise<number> {
    const parent = this.chain.head;
    const baseFee = parent.header.calcNextBaseFee();
    const chosen = this.nextTimestamp;
    const timestamp = this.pendingTimestamp();
    this.nextTimestamp = undefined;
    const edits = this.edits.take();
    const hooks = this.options.engine?.producerHooks(this.headSeenAtMs, this.intervalMs);
    const recording = this.options.callTraces?.recordBlock();
    const built = await this.executor
      .build(parent, this.pool.executable(baseFee), {
        timestamp,
        coinbase: this.options.coinbase,
        ...(hooks || edits ? { hooks: this.edits.withEdits(hooks, edits)! } : {}),
        ...(recording ? { runTransaction: recording.run } : {}),
      })
      .catch((error: unknown) => {
        this.edits.putBack(edits);
        throw error;
      });
    await this.chain.commit(built, edits);
    recording?.keep(built.block.hash());
    if (chosen !== undefined) this.continueClockFrom(built.block);
    for (const { tx, error } of built.rejected) {
      this.log.debug({ hash: tx.hash(), reason: error.message }, "transaction dropped by block producer");
    }
    await this.pool.onNewHead(
      built,
      built.rejected.map((r) => r.tx),
    );
    this.log.debug(
      { number: built.block.header.number, txs: built.block.transactions.length },
      "block committed",
    );
    return built.block.transactions.length;
  }

  /**
   * Builds `count` empty blocks on `parent`, each on the one before (the pool has nothing executable
   * and no edit waits). The first is stamped as {@link mine}'s first block when `first`, else like
   * the rest: `intervalSeconds` after its parent, or by the clock.
   */
  private async buildEmptyRun(
    parent: Block,
    count: number,
    first: boolean,
    intervalSeconds: bigint | undefined,
  ): Promise<BuiltBlock[]> {
    const engine = this.options.engine;
    const run: BuiltBlock[] = [];
    for (let i = 0; i < count; i++) {
      const chosen =
        i === 0 && first
          ? this.nextTimestamp
          : intervalSeconds === undefined
            ? undefined
            : parent.header.timestamp + intervalSeconds;
      // Only the run's last two blocks attest their parents: they alone set `safe` and `finalized`
      // (to the last block's parent and grandparent, as votes on every block would), and no head
      // inside the run is announced before the run is committed.
      const hooks = engine?.producerHooks(this.headSeenAtMs, 0, { attestParent: i >= count - 2 });
      const built = await this.executor.build(parent, [], {
        timestamp: this.timestampOn(parent.header.timestamp, chosen),
        coinbase: this.options.coinbase,
        // The run is committed at once: the last block takes the trie nodes of all.
        keepStateWrites: i < count - 1,
        ...(hooks ? { hooks } : {}),
      });
      run.push(built);
      parent = built.block;
    }
    if (first) this.nextTimestamp = undefined;
    return run;
  }

  /**
   * Commits a run of empty blocks in one storage transaction, written on the store's thread, and
   * announces it; with `continueClock` (its last block's timestamp was chosen), the clock continues
   * from that block. A failure discards the whole run.
   */
  private async commitEmptyRun(run: readonly BuiltBlock[], continueClock: boolean): Promise<void> {
    const last = run[run.length - 1]!;
    await this.chain.commitRun(run, { background: true });
    if (continueClock) this.continueClockFrom(last.block);
    await this.pool.onNewHead(last, []);
    this.log.debug(
      { from: run[0]!.block.header.number, to: last.block.header.number },
      "empty blocks committed",
    );
  }
}

/** Seconds since the epoch by the wall clock. */
function wallClock(): bigint {
  return BigInt(Math.floor(Date.now() / 1000));
}
