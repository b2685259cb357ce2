import type { Block } from "@ethereumjs/block";
import type { TypedTransaction } from "@ethereumjs/tx";
import { bytesToHex, equalsBytes } from "@ethereumjs/util";
import type { PostByzantiumTxReceipt, RunBlockResult } from "@ethereumjs/vm";
import { createVM, runBlock } from "@ethereumjs/vm";
import { MAX_EXTRA_DATA } from "../consensus/attestation.js";
import type { PosEngine } from "../consensus/engine.js";
import { ConsensusError } from "../consensus/errors.js";
import type { BlockExecutor, BuiltBlock, Candidate } from "../execution/block/block-executor.js";
import type { ChainView } from "../execution/evm/chain-view.js";
import { firstLine, headerViolation } from "../import/header-rules.js";
import type { StoredReceipt } from "../storage/records.js";
import type { TrieDatabase } from "../storage/trie-db.js";
import type { Chain } from "./chain.js";

/**
 * Why a block was not accepted:
 * - `known`: it is already the canonical block at its height;
 * - `conflict`: another block is canonical at its height (a competing branch);
 * - `unknown-parent`: its parent is not stored here (the sender is ahead: sync first);
 * - `not-head-child`: its parent is stored but is not the head;
 * - `header`: a header field breaks the rules that follow from its parent;
 * - `seal`: missing or bad seal, or a sealer whose turn had not come;
 * - `execution`: re-executing it does not give the sealed header, or a transaction does not apply.
 */
export type RejectionKind =
  | "known"
  | "conflict"
  | "unknown-parent"
  | "not-head-child"
  | "header"
  | "seal"
  | "execution";

/** The outcome of {@link BlockVerifier.verify}: the re-executed block ready to commit, or why not. */
export type BlockVerdict =
  | { readonly ok: true; readonly built: BuiltBlock }
  | { readonly ok: false; readonly kind: RejectionKind; readonly reason: string };

/** Rejections that say the block is wrong (rather than out of place here). */
export const INVALID_KINDS: ReadonlySet<RejectionKind> = new Set(["header", "seal", "execution"]);

/**
 * The one verifier of blocks made elsewhere, shared by `strata import`, `--follow` and p2p sync and
 * gossip. A block must extend the local head; its header must follow from its parent (number, parent
 * hash, timestamp, gas limit, base fee, difficulty, blob fields); on a proof-of-stake network its
 * seal must recover to its miner, an active validator whose turn (scheduled, or fallback after its
 * timeouts) had come; and re-executing it on the parent state (system calls included) must give the
 * very same header. Nothing is written: a good verdict carries the block, receipts and state writes
 * for `chain.commit`.
 */
export class BlockVerifier {
  /**
   * `pooled` finds a transaction this node already holds by its hash (the pool's copy, whose sender
   * was recovered once, at admission): a block from a peer mostly holds transactions gossiped
   * before it, and re-executing it then recovers no sender again.
   */
  constructor(
    private readonly chain: Chain,
    private readonly executor: BlockExecutor,
    private readonly trieDb: TrieDatabase,
    private readonly chainView: ChainView,
    private readonly engine: PosEngine | undefined,
    private readonly pooled: (hash: Uint8Array) => TypedTransaction | undefined = () => undefined,
  ) {}

  /**
   * The cheap checks a block passes before it is relayed to other peers: its parent is stored, its
   * header follows from the parent and its seal is that of a validator whose turn had come. Does
   * not execute it.
   */
  async precheck(block: Block): Promise<BlockVerdict | undefined> {
    const parent = this.chain.store.blockByHash(block.header.parentHash);
    if (!parent) return unknownParent(block, this.chain.head);
    const violation = headerViolation(block, parent.header, this.maxExtraData());
    if (violation) return { ok: false, kind: "header", reason: violation };
    if (!this.engine) return undefined;
    try {
      await this.engine.checkSlot(await this.vmAt(block, parent), parent, block);
      return undefined;
    } catch (error) {
      return { ok: false, kind: "seal", reason: reasonOf(error) };
    }
  }

  /**
   * Verifies `block` as the next head (see the class comment). With `anyParent`, the block may
   * instead extend any stored block (a competing branch for fork choice); it is `known` when it is
   * stored already.
   */
  async verify(block: Block, anyParent = false): Promise<BlockVerdict> {
    const { chain } = this;
    const number = block.header.number;
    const head = chain.head;
    if (anyParent) {
      if (chain.store.blockByHash(block.hash()) !== undefined)
        return { ok: false, kind: "known", reason: "already stored" };
      const parent = chain.store.blockByHash(block.header.parentHash);
      if (!parent) return unknownParent(block, head);
      return this.execute(block, parent);
    }
    const canonical = number <= head.header.number ? chain.store.canonicalHash(number) : undefined;
    if (canonical && equalsBytes(canonical, block.hash())) {
      return { ok: false, kind: "known", reason: "already the canonical block" };
    }
    if (number === 0n) {
      return { ok: false, kind: "conflict", reason: "genesis block does not match the datadir's genesis" };
    }
    if (canonical) {
      return {
        ok: false,
        kind: "conflict",
        reason: `conflicts with the stored canonical block ${bytesToHex(canonical)} (reorganisations are not imported)`,
      };
    }
    const parent = chain.store.blockByHash(block.header.parentHash);
    if (!parent) return unknownParent(block, head);
    if (!equalsBytes(parent.hash(), head.hash())) {
      return {
        ok: false,
        kind: "not-head-child",
        reason: `does not extend the local head ${head.header.number} (${bytesToHex(head.hash())})`,
      };
    }
    return this.execute(block, parent);
  }

  /**
   * The weight of a stored or verified block for fork choice: the size of its slot's validator
   * order minus the sealer's rank (the in-turn validator weighs most); 1 on a network without
   * consensus.
   */
  async weight(block: Block): Promise<number> {
    if (!this.engine) return 1;
    const parent = this.chain.store.blockByHash(block.header.parentHash);
    if (!parent) return 0;
    const slot = await this.engine.checkSlot(await this.vmAt(block, parent), parent, block);
    return slot.setSize - slot.missed.length;
  }

  private async execute(block: Block, parent: Block): Promise<BlockVerdict> {
    const violation = headerViolation(block, parent.header, this.maxExtraData());
    if (violation) return { ok: false, kind: "header", reason: violation };
    try {
      const built = this.engine
        ? await this.replaySealed(block, parent, this.engine)
        : await this.executePlain(block, parent);
      return { ok: true, built };
    } catch (error) {
      // Whatever the failed execution buffered must not reach the next commit.
      this.trieDb.drain();
      const seal = error instanceof ConsensusError && error.kind === "seal";
      return { ok: false, kind: seal ? "seal" : "execution", reason: reasonOf(error) };
    }
  }

  /** A VM on `parent`'s state under the rules of `block`. */
  private vmAt(block: Block, parent: Block) {
    const rules = this.chain.common.copy();
    rules.setHardforkBy({ blockNumber: block.header.number, timestamp: block.header.timestamp });
    return createVM({
      common: rules,
      stateManager: this.chain.states.at(parent.header.stateRoot, "map"),
      blockchain: this.chainView,
    });
  }

  private maxExtraData(): number | undefined {
    return this.engine ? MAX_EXTRA_DATA : undefined;
  }

  /** Re-executes a sealed proof-of-stake block through the engine, whose replay hooks check seal, slot and header. */
  private async replaySealed(block: Block, parent: Block, engine: PosEngine): Promise<BuiltBlock> {
    let candidates: Candidate[];
    try {
      candidates = block.transactions.map((received) => {
        // The same hash is the same signed transaction: the pool's copy knows its sender.
        const tx = this.pooled(received.hash()) ?? received;
        const senderAddress = tx.getSenderAddress();
        return { tx, senderAddress, sender: senderAddress.toString() };
      });
    } catch (error) {
      throw new Error(`invalid transaction signature: ${firstLine(error)}`);
    }
    const built = await this.executor.build(parent, candidates, {
      timestamp: block.header.timestamp,
      coinbase: block.header.coinbase.bytes,
      extraData: block.header.extraData,
      hooks: engine.replayHooks(block),
    });
    const rejected = built.rejected[0];
    if (rejected) {
      this.trieDb.drain();
      throw new Error(
        `transaction ${bytesToHex(rejected.tx.hash())} does not apply: ${firstLine(rejected.error)}`,
      );
    }
    return built;
  }

  /** Executes a plain (unsealed) block under the rules of its own fork; @ethereumjs checks every root. */
  private async executePlain(block: Block, parent: Block): Promise<BuiltBlock> {
    const rules = this.chain.common.copy();
    rules.setHardforkBy({ blockNumber: block.header.number, timestamp: block.header.timestamp });
    const vm = await createVM({
      common: rules,
      stateManager: this.chain.states.at(parent.header.stateRoot, "map"),
      blockchain: this.chainView,
    });
    const result = await runBlock(vm, {
      block,
      setHardfork: true,
      skipHeaderValidation: true,
      generate: false,
    });
    return { block, receipts: storedReceipts(block, result), stateWrites: this.trieDb.drain(), rejected: [] };
  }
}

function unknownParent(block: Block, head: Block): BlockVerdict {
  return {
    ok: false,
    kind: "unknown-parent",
    reason: `unknown parent ${bytesToHex(block.header.parentHash)} (the head is block ${head.header.number})`,
  };
}

function reasonOf(error: unknown): string {
  return error instanceof ConsensusError ? error.reason : firstLine(error);
}

function storedReceipts(block: Block, result: RunBlockResult): StoredReceipt[] {
  return block.transactions.map((tx, index) => {
    const receipt = result.receipts[index] as PostByzantiumTxReceipt & { stateRoot?: Uint8Array };
    const txResult = result.results[index]!;
    return {
      type: tx.type,
      // Receipts before Byzantium carry a post-state root instead of a status; those transactions count as successful.
      status: receipt.stateRoot !== undefined ? 1 : receipt.status,
      cumulativeGasUsed: receipt.cumulativeBlockGasUsed,
      gasUsed: txResult.totalGasSpent,
      logs: receipt.logs.map(([address, topics, data]) => ({ address, topics, data })),
      sender: tx.getSenderAddress().bytes,
      contractAddress: txResult.createdAddress?.bytes,
      txHash: tx.hash(),
      ...(receipt.stateRoot === undefined ? {} : { postState: receipt.stateRoot }),
    };
  });
}
