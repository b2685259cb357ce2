import { type Block, createBlockFromRLP } from "@ethereumjs/block";
import { RLP } from "@ethereumjs/rlp";
import { bytesToBigInt, bytesToHex, equalsBytes } from "@ethereumjs/util";
import type { PostByzantiumTxReceipt, RunBlockResult } from "@ethereumjs/vm";
import { createVM, runBlock } from "@ethereumjs/vm";
import { MAX_EXTRA_DATA } from "../consensus/attestation.js";
import type { PosEngine } from "../consensus/engine.js";
import { BlockExecutor, type BuiltBlock } from "../execution/block-executor.js";
import type { StoredReceipt } from "../storage/records.js";
import { ImportError } from "./errors.js";
import { firstLine, headerViolation } from "./header-rules.js";
import type { OpenedChain } from "./open-chain.js";

/** What happened to one block offered to {@link BlockImporter.import}. */
export type ImportOutcome = "imported" | "known";

/**
 * Imports externally produced blocks onto the canonical chain: each block is decoded under the rules
 * of its fork, checked against its parent ({@link headerViolation}), executed, and its state root,
 * receipts root, logs bloom, gas used, requests hash, transactions and withdrawals roots compared
 * with its header, before it is committed with its receipts in one storage transaction. A block that
 * fails any check raises an {@link ImportError} and nothing of it is written. A block that is
 * already canonical is skipped, so importing the same file twice is harmless.
 *
 * On a Strata proof-of-stake network (given its `engine`) blocks carry 97 bytes of extraData
 * (vanity and seal) and are re-executed as the follower does, through the engine's replay hooks: the
 * system calls run around the transactions, the sealer must be the validator whose turn it was, and
 * the rebuilt block must equal the sealed one in every field the seal covers.
 */
export class BlockImporter {
  private readonly executor: BlockExecutor | undefined;

  constructor(
    private readonly opened: OpenedChain,
    private readonly engine?: PosEngine,
  ) {
    this.executor = engine
      ? new BlockExecutor(opened.common, opened.chain.states, opened.trieDb, opened.chainView)
      : undefined;
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
    const { chain, trieDb } = this.opened;
    const number = block.header.number;
    const known = chain.store.canonicalHash(number);
    if (known && equalsBytes(known, block.hash())) return "known";
    if (number === 0n) throw new ImportError("genesis block does not match the datadir's genesis", number);
    if (number <= chain.head.header.number) {
      throw new ImportError(
        `conflicts with the stored canonical block ${bytesToHex(known!)} (reorganisations are not imported)`,
        number,
      );
    }
    const parent = chain.store.blockByHash(block.header.parentHash);
    if (!parent || !equalsBytes(parent.hash(), chain.head.hash())) {
      throw new ImportError(
        `unknown parent ${bytesToHex(block.header.parentHash)} (the head is block ${chain.head.header.number})`,
        number,
      );
    }
    const maxExtraData = this.engine ? MAX_EXTRA_DATA : undefined;
    const violation = headerViolation(block, parent.header, maxExtraData);
    if (violation) throw new ImportError(violation, number);
    let built: BuiltBlock;
    try {
      built = this.engine
        ? await this.replaySealed(block, parent, this.engine)
        : await this.executePlain(block, parent);
    } catch (error) {
      trieDb.drain();
      throw error instanceof ImportError ? error : new ImportError(firstLine(error), number);
    }
    await chain.commit(built);
    return "imported";
  }

  private async executePlain(block: Block, parent: Block): Promise<BuiltBlock> {
    const result = await this.execute(block, parent);
    return {
      block,
      receipts: storedReceipts(block, result),
      stateWrites: this.opened.trieDb.drain(),
      rejected: [],
    };
  }

  /** Re-executes a sealed proof-of-stake block through the engine; the engine's seal hook verifies it. */
  private async replaySealed(block: Block, parent: Block, engine: PosEngine): Promise<BuiltBlock> {
    const number = block.header.number;
    const candidates = block.transactions.map((tx) => {
      const senderAddress = tx.getSenderAddress();
      return { tx, senderAddress, sender: senderAddress.toString() };
    });
    const built = await this.executor!.build(parent, candidates, {
      timestamp: block.header.timestamp,
      coinbase: block.header.coinbase.bytes,
      extraData: block.header.extraData,
      hooks: engine.replayHooks(block),
    });
    const rejected = built.rejected[0];
    if (rejected) {
      throw new ImportError(
        `transaction ${bytesToHex(rejected.tx.hash())} does not apply: ${firstLine(rejected.error)}`,
        number,
      );
    }
    return built;
  }

  private async execute(block: Block, parent: Block): Promise<RunBlockResult> {
    const { chain, common, chainView } = this.opened;
    const rules = common.copy();
    rules.setHardforkBy({ blockNumber: block.header.number, timestamp: block.header.timestamp });
    const vm = await createVM({
      common: rules,
      stateManager: chain.states.at(parent.header.stateRoot, "map"),
      blockchain: chainView,
    });
    return runBlock(vm, { block, setHardfork: true, skipHeaderValidation: true, generate: false });
  }
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
