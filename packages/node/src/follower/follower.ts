import { type Block, createBlockFromRLP } from "@ethereumjs/block";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import type { Logger } from "pino";
import type { BlockVerifier } from "../chain/block-verifier.js";
import type { Chain } from "../chain/chain.js";
import { ConsensusError } from "../consensus/errors.js";
import type { TxPool } from "../txpool/tx-pool.js";
import type { SourceClient } from "./source-client.js";

/** Blocks fetched per batch request while catching up. */
const BATCH = 50n;
/** Pause before reconnecting to, or retrying, a source that failed. */
const RETRY_MS = 1_000;

/** A block the follower refused, and why. */
export interface RejectedBlock {
  readonly number: bigint;
  readonly hash: string;
  readonly reason: string;
}

/**
 * Follows another node: catches up over JSON-RPC (`debug_getRawBlock` in batches), then follows its
 * `newHeads` over WebSocket. Every block is verified by the node's {@link BlockVerifier} before it is
 * committed: it must extend the local head, carry the seal of the validator whose turn it was
 * (proof-of-stake networks), and re-execute to the very same header (state root, receipts, gas). A block that fails is rejected
 * with a logged reason; the follower keeps its last good head and does not advance past it.
 */
export class Follower {
  private stopped = true;
  private target = 0n;
  private syncing: Promise<void> | undefined;
  private unsubscribe: (() => void) | undefined;
  private retry: NodeJS.Timeout | undefined;
  private rejectedBlock: RejectedBlock | undefined;

  constructor(
    private readonly chain: Chain,
    private readonly pool: TxPool,
    private readonly verifier: BlockVerifier,
    private readonly source: SourceClient,
    private readonly log: Logger,
  ) {}

  /** The last block refused, if any. */
  get lastRejected(): RejectedBlock | undefined {
    return this.rejectedBlock;
  }

  /** Starts following: subscribes to new heads and catches up. */
  start(): void {
    this.stopped = false;
    void this.connect();
  }

  /** Stops following and waits for a block being imported. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.unsubscribe?.();
    await this.syncing;
  }

  /** Resolves once the local head is at least `number` (tests and tools). */
  async waitForHead(number: bigint, timeoutMs = 60_000): Promise<void> {
    if (this.chain.head.header.number >= number) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`follower: head ${this.chain.head.header.number} did not reach ${number}`));
      }, timeoutMs);
      const off = this.chain.events.on("newHead", ({ block }) => {
        if (block.header.number >= number) {
          clearTimeout(timer);
          off();
          resolve();
        }
      });
    });
  }

  /**
   * Verifies `block` on top of the local head ({@link BlockVerifier}) and commits it. Throws
   * {@link ConsensusError} (and leaves the head unchanged) when it does not verify.
   */
  async importBlock(block: Block): Promise<void> {
    const verdict = await this.verifier.verify(block);
    if (!verdict.ok) {
      if (verdict.kind === "known") return;
      throw new ConsensusError(block.header.number, verdict.reason);
    }
    await this.chain.commit(verdict.built);
    await this.pool.onNewHead(verdict.built, []);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    try {
      this.syncTo(await this.source.blockNumber());
      this.unsubscribe = await this.source.subscribeNewHeads(
        (number) => this.syncTo(number),
        (reason) => {
          this.log.warn({ reason }, "source subscription ended; reconnecting");
          this.later(() => this.connect());
        },
      );
      // Heads announced between the first look and the subscription.
      this.syncTo(await this.source.blockNumber());
    } catch (error) {
      this.log.warn({ err: error }, "source unavailable; retrying");
      this.later(() => this.connect());
    }
  }

  private later(fn: () => void): void {
    if (this.stopped) return;
    this.retry = setTimeout(fn, RETRY_MS);
  }

  /** Catches up to `number`; one catch-up runs at a time and picks up targets raised meanwhile. */
  private syncTo(number: bigint): void {
    if (number > this.target) this.target = number;
    if (this.syncing || this.stopped) return;
    this.syncing = this.catchUp()
      .catch((error: unknown) => this.log.error({ err: error }, "following the source failed"))
      .finally(() => {
        this.syncing = undefined;
      });
  }

  private async catchUp(): Promise<void> {
    while (!this.stopped && this.chain.head.header.number < this.target) {
      const from = this.chain.head.header.number + 1n;
      const to = this.target < from + BATCH - 1n ? this.target : from + BATCH - 1n;
      let raws: string[];
      try {
        raws = await this.source.rawBlocks(from, to);
      } catch (error) {
        this.log.warn({ err: error }, "fetching blocks from the source failed; retrying");
        this.later(() => this.syncTo(this.target));
        return;
      }
      if (raws.length === 0) return;
      for (const raw of raws) {
        if (this.stopped) return;
        if (!(await this.importRaw(raw))) return;
      }
    }
  }

  /** Decodes and imports one block; false when it was rejected. */
  private async importRaw(raw: string): Promise<boolean> {
    let block: Block;
    try {
      block = createBlockFromRLP(hexToBytes(raw as `0x${string}`), {
        common: this.chain.common,
        setHardfork: true,
        skipConsensusFormatValidation: true,
      });
    } catch (error) {
      this.reject(
        this.chain.head.header.number + 1n,
        "(undecodable)",
        `invalid block encoding: ${(error as Error).message}`,
      );
      return false;
    }
    try {
      await this.importBlock(block);
      return true;
    } catch (error) {
      // Anything that stops a block from re-executing is a reason to refuse it.
      const reason =
        error instanceof ConsensusError ? error.reason : String((error as Error).message ?? error);
      this.reject(block.header.number, bytesToHex(block.hash()), reason);
      return false;
    }
  }

  private reject(number: bigint, hash: string, reason: string): void {
    const repeated = this.rejectedBlock?.hash === hash && this.rejectedBlock.reason === reason;
    this.rejectedBlock = { number, hash, reason };
    if (!repeated) {
      this.log.error(
        { number: Number(number), hash, reason, head: Number(this.chain.head.header.number) },
        "block rejected; keeping the last good head",
      );
    }
  }
}
