import { RLP } from "@ethereumjs/rlp";
import { ImportError } from "./errors.js";

/** One RLP-encoded block of a chain file, with its position in the file. */
export interface EncodedBlock {
  /** Byte offset of the block in the file. */
  readonly offset: number;
  readonly bytes: Uint8Array;
}

/**
 * Splits a chain file (RLP blocks written one after another, as `geth export` does) into its blocks.
 * Each item must be an RLP list; anything else, or a truncated item, is an {@link ImportError}
 * naming the byte offset.
 */
export function* splitRlpBlocks(file: Uint8Array): Generator<EncodedBlock> {
  let offset = 0;
  while (offset < file.length) {
    const rest = file.subarray(offset);
    let remainder: Uint8Array;
    try {
      ({ remainder } = RLP.decode(rest, true));
    } catch (error) {
      throw new ImportError(`invalid RLP at byte ${offset}: ${(error as Error).message}`);
    }
    if (rest[0]! < 0xc0) throw new ImportError(`invalid RLP at byte ${offset}: a block must be an RLP list`);
    const length = rest.length - remainder.length;
    yield { offset, bytes: rest.subarray(0, length) };
    offset += length;
  }
}
