import type { Block, BlockHeader } from "@ethereumjs/block";
import { equalsBytes } from "@ethereumjs/util";

/** Largest `extraData` of a header, in bytes (geth's `MaximumExtraDataSize`). */
const MAX_EXTRA_DATA = 32;

/**
 * Checks the header fields that follow from the parent, as geth's consensus engines do: number,
 * parent hash, timestamp, gas limit bounds, gas used, base fee, difficulty (the ethash difficulty
 * formula before the merge, zero after; the proof-of-work seal itself is not checked, nor are
 * clique signatures) and the blob fields (excess blob gas and blob gas used). Returns the reason
 * of the first violation. `maxExtraData` is 32 bytes unless the network's consensus puts more there
 * (a proof-of-stake seal).
 */
export function headerViolation(
  block: Block,
  parent: BlockHeader,
  maxExtraData = MAX_EXTRA_DATA,
): string | undefined {
  const header = block.header;
  const common = header.common;
  if (header.number !== parent.number + 1n)
    return `number ${header.number} does not follow parent number ${parent.number}`;
  if (!equalsBytes(header.parentHash, parent.hash())) return "parent hash mismatch";
  if (header.timestamp <= parent.timestamp)
    return `timestamp ${header.timestamp} not after parent timestamp ${parent.timestamp}`;
  const consensus = common.consensusType();
  // Clique keeps its signer list and seal in the extra data, beyond the 32 bytes.
  if (consensus !== "poa" && header.extraData.length > maxExtraData)
    return `extra data too long: ${header.extraData.length} > ${maxExtraData} bytes`;
  if (header.gasUsed > header.gasLimit)
    return `gas used ${header.gasUsed} exceeds gas limit ${header.gasLimit}`;
  try {
    header.validateGasLimit(parent);
  } catch (error) {
    return `invalid gas limit: ${firstLine(error)}`;
  }
  if (common.isActivatedEIP(1559)) {
    const expected = parent.common.isActivatedEIP(1559)
      ? parent.calcNextBaseFee()
      : common.param("initialBaseFee");
    if (header.baseFeePerGas !== expected)
      return `invalid base fee: have ${header.baseFeePerGas}, want ${expected}`;
  }
  if (consensus === "pow") {
    const expected = header.ethashCanonicalDifficulty(parent);
    if (header.difficulty !== expected)
      return `invalid difficulty: have ${header.difficulty}, want ${expected}`;
  } else if (consensus === "pos" && header.difficulty !== 0n) {
    return `invalid difficulty: have ${header.difficulty}, want 0 after the merge`;
  }
  try {
    block.validateBlobTransactions(parent);
  } catch (error) {
    return firstLine(error);
  }
  return undefined;
}

/** The first line of an error's message, without @ethereumjs's appended block dump. */
export function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message
    .split("\n")[0]!
    .replace(/ \([^()]*hf=[^()]*\)\s*$/, "")
    .trim();
}
