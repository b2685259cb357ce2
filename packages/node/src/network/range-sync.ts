import type { Block } from "@ethereumjs/block";
import type { Logger } from "pino";
import type { Chain } from "../chain/chain.js";
import { MAX_REORG_DEPTH } from "../consensus/fork-choice.js";
import { MAX_RANGE_BLOCKS } from "./wire.js";

/** What became of one block handed to the chain. */
export type ImportResult = "imported" | "known" | "invalid" | "diverged";

/** What range sync needs from the network around it. */
export interface RangeSyncPeers {
  /** Heads announced by the peers that passed the status handshake, by peer id. */
  heads(): ReadonlyMap<string, bigint>;
  /** Asks `peer` for `count` canonical blocks from `from` (bounded, with a timeout). */
  fetch(peer: string, from: bigint, count: number): Promise<Block[]>;
  /** Verifies and commits one block. */
  importBlock(block: Block, peer: string): Promise<ImportResult>;
  /** Lowers `peer`'s score for a failed or wrong answer. */
  penalize(peer: string, points: number, reason: string): void;
}

/** Failed requests in a row after which a sync round gives up (it starts again on the next status). */
const MAX_FAILURES = 6;
/** Penalty for a request that failed or timed out. */
const FAILED_REQUEST_PENALTY = 5;
/** Penalty for a batch holding a block that does not verify. */
const INVALID_BLOCK_PENALTY = 50;

/**
 * Brings the local chain up to the best head its peers announce, by blocks-by-range requests of at
 * most {@link MAX_RANGE_BLOCKS} blocks, spread round-robin over every peer ahead of it, each request
 * with a timeout and retried with the next peer when it fails. Every block goes through the node's
 * one verifier. A peer whose blocks do not extend the local chain (another branch) is left alone
 * until its head changes.
 */
export class RangeSync {
  private running: Promise<void> | undefined;
  private stopped = false;
  private turn = 0;
  /** Peers on another branch, with the head they had when that was found. */
  private readonly diverged = new Map<string, bigint>();

  constructor(
    private readonly chain: Chain,
    private readonly peers: RangeSyncPeers,
    private readonly log: Logger,
  ) {}

  /** True while a sync round runs. */
  get syncing(): boolean {
    return this.running !== undefined;
  }

  /** True while syncing, or while some peer (not on another branch) announces a head above this node's. */
  get behind(): boolean {
    return this.running !== undefined || this.candidates().length > 0;
  }

  /** Starts a sync round unless one runs; resolves when it ends. */
  trigger(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.running ??= this.run()
      .catch((error: unknown) => this.log.warn({ err: error }, "sync round failed"))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  /** Stops syncing and waits for the round under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private candidates(): string[] {
    const head = this.chain.head.header.number;
    const ahead: string[] = [];
    for (const [peer, number] of this.peers.heads()) {
      const divergedAt = this.diverged.get(peer);
      if (divergedAt !== undefined && divergedAt === number) continue;
      this.diverged.delete(peer);
      if (number > head) ahead.push(peer);
    }
    return ahead;
  }

  private async run(): Promise<void> {
    let failures = 0;
    /** Peers whose blocks did not connect to the head: asked again from deeper down, for fork choice. */
    const searching = new Set<string>();
    while (!this.stopped && failures < MAX_FAILURES) {
      const ahead = this.candidates();
      if (ahead.length === 0) return;
      const peer = ahead[this.turn++ % ahead.length]!;
      const head = this.chain.head.header.number;
      const target = this.peers.heads().get(peer) ?? head;
      const depth = searching.has(peer) ? BigInt(MAX_REORG_DEPTH) - 1n : 0n;
      const from = head + 1n - depth > 1n ? head + 1n - depth : 1n;
      const wanted = target - from + 1n;
      const count = Number(wanted < BigInt(MAX_RANGE_BLOCKS) ? wanted : BigInt(MAX_RANGE_BLOCKS));
      let blocks: Block[];
      try {
        blocks = await this.peers.fetch(peer, from, count);
      } catch (error) {
        failures++;
        this.peers.penalize(
          peer,
          FAILED_REQUEST_PENALTY,
          `blocks-by-range failed: ${(error as Error).message}`,
        );
        continue;
      }
      if (blocks.length === 0) {
        // The peer no longer has what it announced; wait for its next status.
        this.diverged.set(peer, target);
        continue;
      }
      failures = 0;
      const headBefore = this.chain.head;
      for (const block of blocks) {
        if (this.stopped) return;
        const result = await this.peers.importBlock(block, peer);
        if (result === "invalid") {
          this.peers.penalize(peer, INVALID_BLOCK_PENALTY, `sent invalid block ${block.header.number}`);
          break;
        }
        if (result === "diverged") {
          if (!searching.has(peer)) {
            searching.add(peer);
            break;
          }
          searching.delete(peer);
          this.diverged.set(peer, target);
          this.log.info(
            { peer, number: Number(block.header.number) },
            `peer is on a branch forking more than ${MAX_REORG_DEPTH} blocks below the head; not syncing from it`,
          );
          break;
        }
      }
      if (depth > 0n && searching.has(peer)) {
        // The peer's branch is stored now; when fork choice kept this node's, leave that peer be.
        searching.delete(peer);
        if (this.chain.head === headBefore) this.diverged.set(peer, target);
      }
    }
  }
}
