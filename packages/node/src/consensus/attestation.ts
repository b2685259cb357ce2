import type { BlockHeader } from "@ethereumjs/block";
import { bigIntToBytes, bytesToHex, concatBytes, equalsBytes, setLengthLeft } from "@ethereumjs/util";
import { keccak256 } from "../crypto/keccak.js";
import type { ActiveValidator } from "./schedule.js";
import {
  ATTESTATION_HEADER_LENGTH,
  ATTESTATION_VERSION,
  EXTRA_VANITY,
  hasSeal,
  recoverSigner,
  SEAL_LENGTH,
  signSeal,
} from "./seal.js";

/** Bytes of a signature in a vote or an attestation: r (32) ‖ s (32) ‖ recovery id (1). */
export const SIGNATURE_LENGTH = SEAL_LENGTH;
/** Most voters one attestation can name: the bits of its bitmap. */
export const MAX_VOTERS = 64;
/** Largest `extraData` of a sealed header: vanity, an attestation signed by {@link MAX_VOTERS} voters, seal. */
export const MAX_EXTRA_DATA =
  EXTRA_VANITY + ATTESTATION_HEADER_LENGTH + MAX_VOTERS * SIGNATURE_LENGTH + SEAL_LENGTH;
/** Bytes of a vote on the wire: number (8) ‖ hash (32) ‖ signature (65). */
export const VOTE_LENGTH = 8 + 32 + SIGNATURE_LENGTH;

/**
 * The type hash of a finality vote, `keccak256("StrataFinalityVote(uint256 chainId,uint256 number,bytes32 hash)")`;
 * the Staking contract uses the same constant to check votes submitted as double-sign evidence.
 */
export const VOTE_TYPEHASH = keccak256(
  new TextEncoder().encode("StrataFinalityVote(uint256 chainId,uint256 number,bytes32 hash)"),
);

/** A validator's signed statement that block `hash` at height `number` is its head. */
export interface Vote {
  readonly number: bigint;
  /** The 32-byte block hash voted for. */
  readonly hash: Uint8Array;
  /** r ‖ s ‖ recovery id over {@link voteSigningHash}. */
  readonly signature: Uint8Array;
}

/** An aggregate of votes for one block, carried in its child's header. */
export interface Attestation {
  readonly number: bigint;
  readonly hash: Uint8Array;
  /** Bit i set: the i-th validator of the voter set signed (see {@link verifyAttestation}). */
  readonly bitmap: bigint;
  /** One signature per set bit, in ascending bit order. */
  readonly signatures: readonly Uint8Array[];
}

/** The digest a vote signs: `keccak256(abi.encode(VOTE_TYPEHASH, chainId, number, hash))`. */
export function voteSigningHash(chainId: bigint, number: bigint, hash: Uint8Array): Uint8Array {
  return keccak256(concatBytes(VOTE_TYPEHASH, word(chainId), word(number), hash));
}

/** Signs a vote for block (`number`, `hash`) with `privateKey`. */
export function signVote(chainId: bigint, number: bigint, hash: Uint8Array, privateKey: Uint8Array): Vote {
  return { number, hash, signature: signSeal(voteSigningHash(chainId, number, hash), privateKey) };
}

/** The lowercase address that signed `vote`, or undefined for an invalid signature. */
export function recoverVoter(chainId: bigint, vote: Vote): string | undefined {
  if (vote.hash.length !== 32) return undefined;
  return recoverSigner(voteSigningHash(chainId, vote.number, vote.hash), vote.signature);
}

/** A vote as the {@link VOTE_LENGTH} bytes the network carries. */
export function encodeVote(vote: Vote): Uint8Array {
  return concatBytes(setLengthLeft(bigIntToBytes(vote.number), 8), vote.hash, vote.signature);
}

/** Decodes {@link encodeVote}'s bytes; undefined when they are not exactly one vote. */
export function decodeVote(bytes: Uint8Array): Vote | undefined {
  if (bytes.length !== VOTE_LENGTH) return undefined;
  return {
    number: readUint64(bytes, 0),
    hash: bytes.slice(8, 40),
    signature: bytes.slice(40, VOTE_LENGTH),
  };
}

/** The bytes of an attestation as they sit in `extraData` between the vanity and the seal. */
export function encodeAttestation(attestation: Attestation): Uint8Array {
  return concatBytes(
    Uint8Array.of(ATTESTATION_VERSION),
    setLengthLeft(bigIntToBytes(attestation.number), 8),
    attestation.hash,
    setLengthLeft(bigIntToBytes(attestation.bitmap), 8),
    ...attestation.signatures,
  );
}

/** Raised for `extraData` whose attestation part is malformed. */
export class AttestationFormatError extends Error {}

/**
 * The attestation a header carries, or undefined when its `extraData` is just vanity and seal (or
 * is not vanity ‖ [attestation] ‖ seal at all: such a header has no valid seal either). Throws
 * {@link AttestationFormatError} for a signature that is not 65 bytes long where the bitmap puts one.
 */
export function attestationOf(header: BlockHeader): Attestation | undefined {
  if (!hasSeal(header)) return undefined;
  const body = header.extraData.subarray(EXTRA_VANITY, header.extraData.length - SEAL_LENGTH);
  if (body.length === 0) return undefined;
  // hasSeal checked the version byte and that the bitmap's voters fill the bytes up to the seal.
  const bitmap = readUint64(body, 41);
  const count = (body.length - ATTESTATION_HEADER_LENGTH) / SIGNATURE_LENGTH;
  if (popCount(bitmap) !== count)
    throw new AttestationFormatError("attestation bitmap does not match its signatures");
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const at = ATTESTATION_HEADER_LENGTH + i * SIGNATURE_LENGTH;
    signatures.push(body.slice(at, at + SIGNATURE_LENGTH));
  }
  return { number: readUint64(body, 1), hash: body.slice(9, 41), bitmap, signatures };
}

/** Why an attestation is not valid, or undefined when it is. */
export type AttestationProblem = string | undefined;

/**
 * Checks an attestation against the block it attests and the voters of that block: it must name
 * exactly `target` (number and hash); every bit must index a validator of `voters` (the active set
 * read from `target`'s post-state, in the contract's order: the set that schedules `target`'s
 * child); each signature must recover to the validator of its bit; and the voters' stake must be at
 * least two thirds of the set's total (`3 × voted ≥ 2 × total`). Returns why not, or undefined.
 */
export function verifyAttestation(
  attestation: Attestation,
  target: BlockHeader,
  voters: readonly ActiveValidator[],
  chainId: bigint,
): AttestationProblem {
  if (attestation.number !== target.number || !equalsBytes(attestation.hash, target.hash())) {
    return `attestation names block ${attestation.number} ${bytesToHex(attestation.hash)}, not the parent ${target.number} ${bytesToHex(target.hash())}`;
  }
  if (voters.length > MAX_VOTERS)
    return `the voter set has ${voters.length} validators, more than ${MAX_VOTERS}`;
  if (attestation.bitmap >> BigInt(voters.length) !== 0n) {
    return `attestation bitmap names a voter beyond the ${voters.length} active validators`;
  }
  const digest = voteSigningHash(chainId, attestation.number, attestation.hash);
  let voted = 0n;
  let next = 0;
  for (let i = 0; i < voters.length; i++) {
    if (((attestation.bitmap >> BigInt(i)) & 1n) === 0n) continue;
    const signature = attestation.signatures[next++];
    const validator = voters[i]!;
    const signer = signature ? recoverSigner(digest, signature) : undefined;
    if (signer !== validator.address) {
      return `attestation signature ${next - 1} is not ${validator.address}'s (recovers to ${signer ?? "nothing"})`;
    }
    voted += validator.stake;
  }
  const total = voters.reduce((sum, v) => sum + v.stake, 0n);
  if (!isQuorum(voted, total)) {
    return `attestation voters hold ${voted} of ${total} wei of active stake, less than two thirds`;
  }
  return undefined;
}

/**
 * The check a block verifier makes of a sealed header's attestation: none, or a well-formed one that
 * {@link verifyAttestation} accepts for `parent` with `voters` (the active set after `parent`, which
 * also schedules `header`). Returns why the header is invalid, or undefined.
 */
export function checkHeaderAttestation(
  header: BlockHeader,
  parent: BlockHeader,
  voters: readonly ActiveValidator[],
  chainId: bigint,
): AttestationProblem {
  if (!hasSeal(header)) return "extraData is not vanity, attestation and seal";
  let attestation: Attestation | undefined;
  try {
    attestation = attestationOf(header);
  } catch (error) {
    if (error instanceof AttestationFormatError) return error.message;
    throw error;
  }
  return attestation ? verifyAttestation(attestation, parent, voters, chainId) : undefined;
}

/** True when `voted` is at least two thirds of `total` (the quorum of an attestation). */
export function isQuorum(voted: bigint, total: bigint): boolean {
  return total > 0n && 3n * voted >= 2n * total;
}

function word(value: bigint): Uint8Array {
  return setLengthLeft(bigIntToBytes(value), 32);
}

function readUint64(bytes: Uint8Array, at: number): bigint {
  return new DataView(bytes.buffer, bytes.byteOffset + at, 8).getBigUint64(0);
}

function popCount(bitmap: bigint): number {
  let count = 0;
  for (let rest = bitmap; rest > 0n; rest >>= 1n) count += Number(rest & 1n);
  return count;
}
