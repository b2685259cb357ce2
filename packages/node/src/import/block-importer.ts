import { type Block, createBlockFromRLP } from "@ethereumjs/block";
import { RLP } from "@ethereumjs/rlp";
import { bytesToBigInt, bytesToHex } from "@ethereumjs/util";
import { BlockVerifier } from "../chain/block-verifier.js";
import type { OpenedChain } from "../chain/open-chain.js";
import type { PosEngine } from "../consensus/engine.js";
import { BlockExecutor } from "../execution/block/block-executor.js";
import { ImportError } from "./errors.js";
import { firstLine } from "./header-rules.js";

/** What happened to one block offered to {@link BlockImporter.import}. */
export type ImportOutcome = "imported" | "known";

/**
 * Imports externally produced blocks onto the canonical chain: each block is decoded under the rules
 * of its fork and checked by the node's one {@link BlockVerifier} (parent, header rules, seal and
 * schedule on a proof-of-stake network, re-execution to the very same header) before it is committed
 * with its receipts in one storage transaction. A block that fails any check raises an
 * {@link ImportError} and nothing of it is written. A block that is already canonical is skipped, so
 * importing the same file twice is harmless.
 */
export class BlockImporter {
  private readonly verifier: BlockVerifier;

  constructor(
    private readonly opened: OpenedChain,
    private readonly engine?: PosEngine,
  ) {
    const executor = new BlockExecutor(opened.common, opened.chain.states, opened.trieDb, opened.chainView);
    this.verifier = new BlockVerifier(opened.chain, executor, opened.trieDb, opened.chainView, engine);
  }

  /** Decodes one RLP block under the rules of its own fork. */
  decode(bytes: Uint8Array, offset: number): Block {
    try {
      return createBlockFromRLP(bytes, {
        common: this.opened.common,
        setHardfork: true,
        // Sealed proof-of-stake headers exceed the merge's 32 bytes of extraData; the seal is checked on import.
        skipConsensusFormatValidation: this.engine !== undefined,
      });
    } catch (error) {
      const number = headerNumber(bytes);
      throw number === undefined
        ? new ImportError(`undecodable block at byte ${offset}: ${firstLine(error)}`)
        : new ImportError(`${firstLine(error)} (block at byte ${offset})`, number);
    }
  }

  /** Verifies, executes and commits `block` as the new head. */
  async import(block: Block): Promise<ImportOutcome> {
    const verdict = await this.verifier.verify(block);
    if (verdict.ok) {
      await this.opened.chain.commit(verdict.built);
      return "imported";
    }
    if (verdict.kind === "known") return "known";
    // A block whose stored parent is not the head is reported as not extending the head's chain.
    const reason =
      verdict.kind === "not-head-child"
        ? `unknown parent ${bytesToHex(block.header.parentHash)} (the head is block ${this.opened.chain.head.header.number})`
        : verdict.reason;
    throw new ImportError(reason, block.header.number);
  }
}

/** The number field of an RLP block's header, when the block is at least that well formed. */
function headerNumber(bytes: Uint8Array): bigint | undefined {
  try {
    const header = (RLP.decode(bytes) as unknown[])[0];
    const number = Array.isArray(header) ? header[8] : undefined;
    return number instanceof Uint8Array ? bytesToBigInt(number) : undefined;
  } catch {
    return undefined;
  }
}
