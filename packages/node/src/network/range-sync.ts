import type { Block } from "@ethereumjs/block";
import { hexToBytes } from "@ethereumjs/util";
import type { Logger } from "pino";
import type { Chain } from "../chain/chain.js";
import { MAX_REORG_DEPTH } from "../consensus/fork-choice.js";
import { type BlockRef, MAX_RANGE_BLOCKS } from "./wire.js";

/** What became of one block handed to the chain. */
export type ImportResult = "imported" | "known" | "invalid" | "diverged";

/** What range sync needs from the network around it. */
export interface RangeSyncPeers {
  /** Heads announced by the peers that passed the status handshake, by peer id. */
  heads(): ReadonlyMap<string, BlockRef>;
  /** Asks `peer` for `count` canonical blocks from `from` (bounded, with a timeout). */
  fetch(peer: string, from: bigint, count: number): Promise<Block[]>;
  /** Verifies and commits one block of a range answer. */
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
 * one verifier. A peer whose head this node lacks although it is not higher (another branch, e.g.
 * after a network partition) is asked for its branch from {@link MAX_REORG_DEPTH} blocks below this
 * node's head, so that fork choice can weigh it. A peer whose branch fork choice did not take, or
 * that forks too deep, is left alone until its head changes.
 */
export class RangeSync {
  private running: Promise<void> | undefined;
  private stopped = false;
  private turn = 0;
  /** Peers on another branch, with the head hash they had when that was found. */
  private readonly diverged = new Map<string, string>();

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
    const head = this.chain.head.header.number;
    return this.running !== undefined || this.candidates().some((peer) => peer.head.number > head);
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

  /** Peers to sync from: those ahead of this node, and those on a branch it lacks within reorg depth. */
  private candidates(): { readonly peer: string; readonly head: BlockRef }[] {
    const head = this.chain.head.header.number;
    const found: { peer: string; head: BlockRef }[] = [];
    for (const [peer, ref] of this.peers.heads()) {
      if (this.diverged.get(peer) === ref.hash) continue;
      this.diverged.delete(peer);
      if (ref.number > head) found.push({ peer, head: ref });
      else if (ref.number + BigInt(MAX_REORG_DEPTH) > head && !this.isStored(ref.hash))
        found.push({ peer, head: ref });
    }
    return found;
  }

  private isStored(hash: string): boolean {
    return this.chain.store.blockByHash(hexToBytes(hash as `0x${string}`)) !== undefined;
  }

  private async run(): Promise<void> {
    let failures = 0;
    /** Peers whose blocks did not connect to the head: asked again from deeper down, for fork choice. */
    const searching = new Set<string>();
    while (!this.stopped && failures < MAX_FAILURES) {
      const found = this.candidates();
      if (found.length === 0) return;
      const { peer, head: peerHead } = found[this.turn++ % found.length]!;
      const head = this.chain.head.header.number;
      const target = peerHead.number;
      // A peer not ahead of this node is on another branch: its blocks since the fork are wanted.
      if (target <= head) searching.add(peer);
      const depth = searching.has(peer) ? BigInt(MAX_REORG_DEPTH) - 1n : 0n;
      const from = head + 1n - depth > 1n ? head + 1n - depth : 1n;
      const wanted = target - from + 1n;
      if (wanted < 1n) {
        // Its branch forks deeper than fork choice looks.
        this.diverged.set(peer, peerHead.hash);
        searching.delete(peer);
        continue;
      }
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
        this.diverged.set(peer, peerHead.hash);
        searching.delete(peer);
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
          this.diverged.set(peer, peerHead.hash);
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
        if (this.chain.head === headBefore) this.diverged.set(peer, peerHead.hash);
      }
    }
  }
}
