import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import type { Chain } from "../chain/chain.js";
import type { MiningMode } from "../config/node-config.js";
import type { PosEngine } from "../consensus/engine.js";
import { NotYourTurnError } from "../consensus/errors.js";
import type { BlockExecutor } from "../execution/block-executor.js";
import type { TxPool } from "../txpool/tx-pool.js";

/** Settings of the block producer. */
export interface ProducerOptions {
  readonly mode: MiningMode;
  readonly blockTimeSeconds: number;
  readonly coinbase: Uint8Array;
  /** Proof-of-stake engine that picks the proposer and seals; without it blocks carry `coinbase` and no seal. */
  readonly engine?: PosEngine;
}

/** Longest an instant-mode block waits for more transactions when they arrive faster than blocks are built. */
const MAX_GATHER_MS = 50;

/**
 * Produces blocks from the pool: `instant` mines as soon as transactions arrive (everything pending
 * at that moment goes into one block; under a stream of transactions, each block first waits as long
 * as the previous one took to build), `interval` every block time (empty blocks included), `manual`
 * only when {@link BlockProducer.mine} is called. Blocks are built one at a time.
 */
export class BlockProducer {
  private queue: Promise<unknown> = Promise.resolve();
  private scheduled = false;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private nextTimestamp: bigint | undefined;
  private stopped = false;

  constructor(
    private readonly chain: Chain,
    private readonly pool: TxPool,
    private readonly executor: BlockExecutor,
    private readonly options: ProducerOptions,
    private readonly log: Logger,
  ) {}

  /** Starts producing according to the mode. */
  start(): void {
    this.stopped = false;
    if (this.options.mode === "instant") {
      this.unsubscribe = this.chain.events.on("pendingTransaction", () => this.schedule());
      if (this.pool.size > 0) this.schedule();
    } else if (this.options.mode === "interval") {
      this.timer = setInterval(
        () =>
          void this.mine(1).catch((error: unknown) => {
            // A validator waiting for its turn (or another validator's block) is not an error.
            if (!(error instanceof NotYourTurnError))
              this.log.warn({ err: error }, "block production failed");
          }),
        this.options.blockTimeSeconds * 1000,
      );
    }
  }

  /** Stops producing and waits for a block being built to be committed. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    await this.queue.catch(() => {});
  }

  /** Sets the timestamp of the next block (dev networks). */
  setNextTimestamp(timestamp: bigint): void {
    this.nextTimestamp = timestamp;
  }

  /** Mines `count` blocks (empty if the pool has nothing executable) and resolves once they are committed. */
  mine(count = 1): Promise<void> {
    const run = this.queue.then(async () => {
      for (let i = 0; i < count; i++) await this.produceOne();
    });
    this.queue = run.catch(() => {});
    return run;
  }

  private schedule(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const run = this.queue.then(async () => {
        let lastBuildMs: number | undefined;
        while (!this.stopped && this.pool.hasExecutable()) {
          // Transactions arrived while the last block was built: the load is a stream. The next block
          // waits as long as the last one took (at most MAX_GATHER_MS), so blocks grow with the load
          // and their fixed cost (system calls, roots, the store) is paid less often. A transaction
          // reaching an idle producer is mined at once.
          if (lastBuildMs !== undefined) await sleep(Math.min(lastBuildMs, MAX_GATHER_MS));
          if (this.stopped || !this.pool.hasExecutable()) break;
          const started = performance.now();
          if ((await this.produceOne()) === 0) break;
          lastBuildMs = performance.now() - started;
        }
      });
      this.queue = run.catch((error: unknown) => this.log.error({ err: error }, "block production failed"));
    });
  }

  /** Builds and commits one block; returns how many transactions it holds. */
  private async produceOne(): Promise<number> {
    const parent = this.chain.head;
    const baseFee = parent.header.calcNextBaseFee();
    const now = BigInt(Math.floor(Date.now() / 1000));
    const minimum = parent.header.timestamp + 1n;
    const wanted = this.nextTimestamp ?? now;
    this.nextTimestamp = undefined;
    const timestamp = wanted > minimum ? wanted : minimum;
    const built = await this.executor.build(parent, this.pool.executable(baseFee), {
      timestamp,
      coinbase: this.options.coinbase,
      ...(this.options.engine ? { hooks: this.options.engine.producerHooks() } : {}),
    });
    await this.chain.commit(built);
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
}
