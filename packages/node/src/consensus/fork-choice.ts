import type { Block } from "@ethereumjs/block";
import { bytesToHex, compareBytes } from "@ethereumjs/util";
import type { BlockVerifier } from "../chain/block-verifier.js";
import type { Chain } from "../chain/chain.js";

/** Deepest reorganisation fork choice makes: a branch forking further below the head is ignored. */
export const MAX_REORG_DEPTH = 64;
/** Block weights remembered by hash. */
const WEIGHT_CACHE_SIZE = 4096;

/**
 * Picks the canonical branch among the stored ones, by a deterministic rule every node applies
 * alike (docs/network.md "Fork choice"): from the common ancestor of the head and a competing tip,
 * the branch with the greater total proposer weight wins, where a block weighs the size of its
 * slot's validator order minus its sealer's rank (the in-turn validator weighs most, each fallback
 * one less); equal weights go to the branch whose tip hash is lower. Branches forking below the
 * finalized block, or more than {@link MAX_REORG_DEPTH} blocks below the head, are not considered.
 */
export class ForkChoice {
  private readonly weights = new Map<string, number>();

  constructor(
    private readonly chain: Chain,
    private readonly verifier: BlockVerifier,
  ) {}

  /**
   * The blocks (ancestor's child first, `tip` last) to make canonical when `tip`'s branch beats the
   * current head's, else undefined. `tip` and its ancestors must be stored.
   */
  async branchToAdopt(tip: Block): Promise<Block[] | undefined> {
    const head = this.chain.head;
    const added: Block[] = [];
    const removed: Block[] = [];
    let a: Block | undefined = tip;
    let b: Block | undefined = head;
    while (a && b && compareBytes(a.hash(), b.hash()) !== 0) {
      if (added.length > MAX_REORG_DEPTH || removed.length > MAX_REORG_DEPTH) return undefined;
      if (a.header.number >= b.header.number) {
        added.push(a);
        a = this.parentOf(a);
      } else {
        removed.push(b);
        b = this.parentOf(b);
      }
    }
    if (!a || !b || added.length === 0) return undefined;
    // Nothing finalized is ever reverted.
    if (removed.length > 0 && a.header.number < this.chain.finalized.header.number) return undefined;
    const gained = await this.totalWeight(added);
    const lost = await this.totalWeight(removed);
    if (gained < lost) return undefined;
    if (gained === lost && compareBytes(tip.hash(), head.hash()) >= 0) return undefined;
    return added.reverse();
  }

  private parentOf(block: Block): Block | undefined {
    return block.header.number === 0n ? undefined : this.chain.store.blockByHash(block.header.parentHash);
  }

  private async totalWeight(blocks: readonly Block[]): Promise<number> {
    let total = 0;
    for (const block of blocks) total += await this.weightOf(block);
    return total;
  }

  private async weightOf(block: Block): Promise<number> {
    const key = bytesToHex(block.hash());
    const known = this.weights.get(key);
    if (known !== undefined) return known;
    const weight = await this.verifier.weight(block);
    if (this.weights.size >= WEIGHT_CACHE_SIZE) this.weights.delete(this.weights.keys().next().value!);
    this.weights.set(key, weight);
    return weight;
  }
}
