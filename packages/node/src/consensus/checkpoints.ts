import type { BlockHeader } from "@ethereumjs/block";
import { equalsBytes } from "@ethereumjs/util";
import { AttestationFormatError, attestationOf } from "./attestation.js";

/** A block by number and hash. */
export interface Checkpoint {
  readonly number: bigint;
  readonly hash: Uint8Array;
}

/** The chain's finality state: the latest justified block (`safe`) and the latest finalized block (`finalized`). */
export interface Checkpoints {
  readonly justified: Checkpoint;
  readonly finalized: Checkpoint;
}

/**
 * The checkpoints after `header` joins the chain on top of `parent` (BEP-126 rule):
 *
 * - `header` carrying an attestation for `parent` justifies `parent`;
 * - when `parent` in turn carries an attestation for its own parent (so that block is justified and
 *   its direct child `parent` is now justified too), that grandparent is finalized.
 *
 * So with every validator voting, block N justifies N-1 and finalizes N-2: `safe` trails the head by
 * one block and `finalized` by two. Checkpoints never move backwards. A header whose attestation is
 * malformed changes nothing (verified blocks never have one).
 */
export function advanceCheckpoints(
  current: Checkpoints,
  header: BlockHeader,
  parent: BlockHeader,
): Checkpoints {
  if (!attestsParent(header) || parent.number <= current.justified.number) return current;
  const justified = { number: parent.number, hash: header.parentHash };
  if (parent.number >= 1n && attestsParent(parent) && parent.number - 1n > current.finalized.number) {
    return { justified, finalized: { number: parent.number - 1n, hash: parent.parentHash } };
  }
  return { justified, finalized: current.finalized };
}

/** True when `header` carries an attestation for its parent block. */
export function attestsParent(header: BlockHeader): boolean {
  try {
    const attestation = attestationOf(header);
    return (
      attestation !== undefined &&
      attestation.number === header.number - 1n &&
      equalsBytes(attestation.hash, header.parentHash)
    );
  } catch (error) {
    if (error instanceof AttestationFormatError) return false;
    throw error;
  }
}
