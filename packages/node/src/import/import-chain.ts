import { readFileSync } from "node:fs";
import { bytesToHex } from "@ethereumjs/util";
import { openChain } from "../chain/open-chain.js";
import type { NetworkFile } from "../config/network.js";
import { PosEngine } from "../consensus/engine.js";
import { BlockImporter } from "./block-importer.js";
import { ImportError } from "./errors.js";
import { splitRlpBlocks } from "./rlp-blocks.js";

/** Progress of an import, reported after every block. */
export interface ImportProgress {
  readonly number: bigint;
  readonly hash: string;
  readonly transactions: number;
  readonly outcome: "imported" | "known";
}

/** Totals of a finished import. */
export interface ImportSummary {
  readonly imported: number;
  readonly known: number;
  readonly head: bigint;
  readonly headHash: string;
}

/**
 * Imports a chain file (concatenated RLP blocks) into `network`'s chain in `datadir`, block by
 * block ({@link BlockImporter}). Blocks before the first bad one stay imported; the bad one raises
 * an {@link ImportError} naming it and why, and nothing of it is written.
 */
export async function importChainFile(
  network: NetworkFile,
  datadir: string | null,
  file: string | Uint8Array,
  onProgress: (progress: ImportProgress) => void = () => {},
): Promise<ImportSummary> {
  let bytes: Uint8Array;
  try {
    bytes = typeof file === "string" ? readFileSync(file) : file;
  } catch (error) {
    throw new ImportError(`cannot read ${String(file)}: ${(error as Error).message}`);
  }
  const opened = await openChain(network, datadir, { durableCommits: false });
  try {
    const importer = new BlockImporter(opened, verifyingEngine(network));
    let imported = 0;
    let known = 0;
    for (const { bytes: encoded, offset } of splitRlpBlocks(bytes)) {
      const block = importer.decode(encoded, offset);
      const outcome = await importer.import(block);
      if (outcome === "imported") imported++;
      else known++;
      onProgress({
        number: block.header.number,
        hash: bytesToHex(block.hash()),
        transactions: block.transactions.length,
        outcome,
      });
    }
    const head = opened.chain.head;
    return { imported, known, head: head.header.number, headHash: bytesToHex(head.hash()) };
  } finally {
    await opened.close();
  }
}

/** On a proof-of-stake network, an engine that verifies seals and seals nothing itself. */
function verifyingEngine(network: NetworkFile): PosEngine | undefined {
  if (!network.consensus || !network.system) return undefined;
  return new PosEngine(network, { signers: new Map(), waitForTimeouts: false });
}
