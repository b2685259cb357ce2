import { createRequire } from "node:module";
import { isMainThread } from "node:worker_threads";
import { Block, type BlockHeader, createBlockHeaderFromBytesArray } from "@ethereumjs/block";
import { bytesToHex, concatBytes, equalsBytes } from "@ethereumjs/util";
import type Secp256k1 from "secp256k1";
import { keccak256 } from "../crypto/keccak.js";

const require = createRequire(import.meta.url);

/**
 * libsecp256k1 on the main thread; its pure-JS twin on worker threads (execution workers replay
 * sealed blocks), which must not load the native binding: one that had loaded it corrupted the
 * heap when it ended (see crypto/native-crypto.ts).
 */
const secp256k1 = (
  isMainThread ? require("secp256k1") : require("secp256k1/elliptic.js")
) as typeof Secp256k1;

/** Bytes of free-form data before the seal in `extraData` (Clique's vanity). */
export const EXTRA_VANITY = 32;
/** Bytes of the seal at the end of `extraData`: r (32) ‖ s (32) ‖ recovery id (1). */
export const SEAL_LENGTH = 65;
/** Index of `extraData` in a header's RLP field list. */
const EXTRA_DATA_FIELD = 12;

/** The vanity every block this node seals carries: 32 zero bytes. */
export const DEFAULT_VANITY = new Uint8Array(EXTRA_VANITY);

/** First byte of an attestation in `extraData` (attestation.ts): its format version. */
export const ATTESTATION_VERSION = 1;
/** Bytes of an attestation before its signatures: version (1) ‖ number (8) ‖ hash (32) ‖ bitmap (8). */
export const ATTESTATION_HEADER_LENGTH = 1 + 8 + 32 + 8;

/**
 * Where the seal starts in `extraData`, or undefined when `extraData` is not exactly vanity ‖
 * [attestation] ‖ seal. The layout is unambiguous: an attestation starts with its version byte and
 * its bitmap fixes how many 65-byte signatures follow, so the seal's position follows from the
 * bytes before it, never from the length alone.
 */
function sealOffset(extraData: Uint8Array): number | undefined {
  if (extraData.length === EXTRA_VANITY + SEAL_LENGTH) return EXTRA_VANITY;
  if (extraData.length < EXTRA_VANITY + ATTESTATION_HEADER_LENGTH + SEAL_LENGTH) return undefined;
  if (extraData[EXTRA_VANITY] !== ATTESTATION_VERSION) return undefined;
  let voters = 0;
  for (const byte of extraData.subarray(EXTRA_VANITY + 41, EXTRA_VANITY + ATTESTATION_HEADER_LENGTH)) {
    for (let rest = byte; rest > 0; rest >>= 1) voters += rest & 1;
  }
  const offset = EXTRA_VANITY + ATTESTATION_HEADER_LENGTH + voters * SEAL_LENGTH;
  return extraData.length === offset + SEAL_LENGTH ? offset : undefined;
}

/**
 * True when `header.extraData` is vanity and a seal, with a finality attestation between them or
 * not (see attestation.ts).
 */
export function hasSeal(header: BlockHeader): boolean {
  return sealOffset(header.extraData) !== undefined;
}

/** Everything before the seal in a sealed header's `extraData`: the vanity and the attestation, if any. */
export function vanityOf(header: BlockHeader): Uint8Array {
  return header.extraData.subarray(0, header.extraData.length - SEAL_LENGTH);
}

/**
 * The hash a seal signs: the header hash computed with the seal removed from `extraData`, so it
 * covers every other field (state root, transactions, miner, timestamp, vanity, attestation).
 */
export function sealHash(header: BlockHeader): Uint8Array {
  if (!hasSeal(header)) return header.hash();
  return withExtraData(header, vanityOf(header)).hash();
}

/** Signs `hash` with `privateKey` (libsecp256k1, deterministic RFC 6979 nonce): r ‖ s ‖ recovery id. */
export function signSeal(hash: Uint8Array, privateKey: Uint8Array): Uint8Array {
  const { signature, recid } = secp256k1.ecdsaSign(hash, privateKey);
  return concatBytes(signature, Uint8Array.of(recid));
}

/** Sealers already recovered, per header object (a stored block is verified and replayed many times). */
const sealers = new WeakMap<BlockHeader, string | undefined>();

/** The lowercase address whose key produced the header's seal, or undefined when the seal is missing or invalid. */
export function recoverSealer(header: BlockHeader): string | undefined {
  if (sealers.has(header)) return sealers.get(header);
  const sealer = recoverSealerOnce(header);
  sealers.set(header, sealer);
  return sealer;
}

function recoverSealerOnce(header: BlockHeader): string | undefined {
  if (!hasSeal(header)) return undefined;
  return recoverSigner(sealHash(header), header.extraData.subarray(header.extraData.length - SEAL_LENGTH));
}

/** The lowercase address that signed `hash` with the 65-byte `signature` (r ‖ s ‖ recovery id 0/1), or undefined. */
export function recoverSigner(hash: Uint8Array, signature: Uint8Array): string | undefined {
  if (signature.length !== SEAL_LENGTH) return undefined;
  const recovery = signature[64]!;
  if (recovery > 1) return undefined;
  try {
    return addressOfPublicKey(secp256k1.ecdsaRecover(signature.subarray(0, 64), recovery, hash, false));
  } catch {
    return undefined;
  }
}

/** The lowercase address of a private key. */
export function addressOfPrivateKey(privateKey: Uint8Array): string {
  return addressOfPublicKey(secp256k1.publicKeyCreate(privateKey, false));
}

function addressOfPublicKey(uncompressed: Uint8Array): string {
  return bytesToHex(keccak256(uncompressed.subarray(1)).subarray(12));
}

/** The address of each sealing key object, worked out once. */
const keyAddresses = new WeakMap<Uint8Array, string>();

/**
 * The block with the seal of `privateKey` over the block appended to its header's `extraData`, or
 * to `extraData` in its place when given (the seal covers it). Its sealer is known without
 * recovering the seal ({@link recoverSealer} answers from the key).
 */
export function sealBlock(block: Block, privateKey: Uint8Array, extraData?: Uint8Array): Block {
  const unsealed =
    extraData === undefined || equalsBytes(extraData, block.header.extraData)
      ? block.header
      : withExtraData(block.header, extraData);
  const seal = signSeal(unsealed.hash(), privateKey);
  const header = withExtraData(unsealed, concatBytes(unsealed.extraData, seal));
  let sealer = keyAddresses.get(privateKey);
  if (sealer === undefined) {
    sealer = addressOfPrivateKey(privateKey);
    keyAddresses.set(privateKey, sealer);
  }
  // As recovery would: only a header whose extraData parses as vanity, attestation and seal has one.
  sealers.set(header, hasSeal(header) ? sealer : undefined);
  return new Block(header, block.transactions, block.uncleHeaders, block.withdrawals, {
    common: block.common,
  });
}

/** A copy of `header` with another `extraData`. */
export function withExtraData(header: BlockHeader, extraData: Uint8Array): BlockHeader {
  const fields = header.raw();
  fields[EXTRA_DATA_FIELD] = extraData;
  return createBlockHeaderFromBytesArray(fields, {
    common: header.common,
    setHardfork: false,
    skipConsensusFormatValidation: true,
  });
}
