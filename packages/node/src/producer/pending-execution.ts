import { type Block, createBlock } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { createTxFromRLP } from "@ethereumjs/tx";
import { Address } from "@ethereumjs/util";
import type { PosEngine } from "../consensus/engine.js";
import { NoProposerError, NotYourTurnError } from "../consensus/errors.js";
import {
  type BlockExecutor,
  type BlockHooks,
  type BuiltBlock,
  blockMixHash,
  type Candidate,
} from "../execution/block/block-executor.js";
import type { StoredReceipt } from "../storage/records.js";
import type { DevStateEdit } from "../storage/state-edits.js";
import { DevStateEdits } from "./dev-state-edits.js";

/** The block the node would build next, executed: its transactions' receipts and the state after it. */
export interface PendingBuild {
  /** Unsealed: its hash is not the one the mined block will have. */
  readonly block: Block;
  readonly receipts: readonly StoredReceipt[];
  readonly state: MerkleStateManager;
}

/** A pool transaction of the pending block, as posted to an execution worker. */
export interface PendingTransaction {
  /** The canonical encoding. */
  readonly raw: Uint8Array;
  /** The sender, recovered when the pool admitted it (the worker does not recover it again). */
  readonly sender: Uint8Array;
}

/** A dev state edit as posted to an execution worker (plain bytes instead of `Address` objects). */
export type PostedEdit =
  | { readonly kind: "balance" | "nonce"; readonly address: Uint8Array; readonly value: bigint }
  | { readonly kind: "code"; readonly address: Uint8Array; readonly code: Uint8Array }
  | {
      readonly kind: "storage";
      readonly address: Uint8Array;
      readonly slot: Uint8Array;
      readonly value: Uint8Array;
    };

/** Who the node can propose as, so a worker builds the pending block with the same consensus steps. */
export interface PendingProposers {
  readonly signers: readonly string[];
  readonly offline: readonly string[];
  readonly waitForTimeouts: boolean;
}

/**
 * Everything an execution worker needs to make the pending block itself: the stored parent, the
 * header fields the producer chooses, and (when the block changes any state) the pool's executable
 * transactions in the producer's order and the queued dev edits. `key` names the contents: equal
 * keys make equal blocks, so a worker builds each at most once.
 */
export interface PendingContext {
  readonly key: string;
  readonly parentHash: Uint8Array;
  readonly timestamp: bigint;
  readonly coinbase: Uint8Array;
  readonly transactions: readonly PendingTransaction[];
  readonly edits: readonly PostedEdit[];
  /** Undefined on a network without consensus. */
  readonly proposers: PendingProposers | undefined;
}

/** True when the pending block of `context` changes nothing in its parent's state (no transaction, no edit). */
export function isHeaderOnly(context: PendingContext): boolean {
  return context.transactions.length === 0 && context.edits.length === 0;
}

/**
 * The next block's header over `parent`'s state (its state root is the parent's): what calls at an
 * empty pending block run in, at no execution cost.
 */
export function nextHeaderBlock(
  parent: Block,
  timestamp: bigint,
  coinbase: Uint8Array,
  common: Common,
): Block {
  const { header } = parent;
  return createBlock(
    {
      header: {
        parentHash: parent.hash(),
        number: header.number + 1n,
        timestamp,
        gasLimit: header.gasLimit,
        coinbase,
        mixHash: blockMixHash(parent),
        stateRoot: header.stateRoot,
        ...(header.baseFeePerGas !== undefined ? { baseFeePerGas: header.calcNextBaseFee() } : {}),
        ...(header.excessBlobGas !== undefined
          ? { excessBlobGas: header.calcNextExcessBlobGas(common) }
          : {}),
      },
    },
    { common, setHardfork: true, skipConsensusFormatValidation: true },
  );
}

/**
 * Builds the pending block as the producer would, unsealed: with the engine's consensus steps when
 * this node may propose it, otherwise (not its turn, or no proposer) as a plain block.
 */
export async function buildPendingBlock(
  executor: BlockExecutor,
  engine: PosEngine | undefined,
  parent: Block,
  candidates: readonly Candidate[],
  edits: readonly DevStateEdit[] | undefined,
  template: { readonly timestamp: bigint; readonly coinbase: Uint8Array },
): Promise<BuiltBlock> {
  const withEdits = (hooks: BlockHooks | undefined) => {
    const all = EDITS.withEdits(hooks, edits);
    return all ? { ...template, hooks: all } : template;
  };
  try {
    return await executor.build(
      parent,
      candidates,
      withEdits(engine ? unsealed(engine.producerHooks()) : undefined),
    );
  } catch (error) {
    // This node's validators are not the ones to propose next: build as a plain block.
    if (!(error instanceof NotYourTurnError) && !(error instanceof NoProposerError)) throw error;
    return executor.build(parent, candidates, withEdits(undefined));
  }
}

/** Applies edits to hooks; it holds no edits of its own. */
const EDITS = new DevStateEdits();

/** The engine's steps of a block without its seal (and without what sealing remembers). */
function unsealed(hooks: BlockHooks): BlockHooks {
  return { ...hooks, seal: (block) => block };
}

/** `edits` as posted to a worker. */
export function postEdits(edits: readonly DevStateEdit[] | undefined): PostedEdit[] {
  return (edits ?? []).map((edit) => ({ ...edit, address: edit.address.bytes }) as PostedEdit);
}

/** Posted edits as the block builder applies them. */
export function receivedEdits(posted: readonly PostedEdit[]): DevStateEdit[] | undefined {
  if (posted.length === 0) return undefined;
  return posted.map((edit) => ({ ...edit, address: new Address(edit.address) }) as DevStateEdit);
}

/** Posted transactions as block candidates, their senders taken as posted. */
export function receivedCandidates(transactions: readonly PendingTransaction[], common: Common): Candidate[] {
  return transactions.map(({ raw, sender }) => {
    const tx = createTxFromRLP(raw, { common, freeze: false });
    const senderAddress = new Address(sender);
    Object.defineProperty(tx, "getSenderAddress", { value: () => senderAddress });
    Object.defineProperty(tx, "serialize", { value: () => raw });
    // Frozen as the pool's are (which also lets @ethereumjs cache its hash).
    Object.freeze(tx);
    return { tx, senderAddress, sender: senderAddress.toString() };
  });
}
