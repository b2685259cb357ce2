import type { Common } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import {
  Capability,
  create1559FeeMarketTxFromBytesArray,
  createAccessList2930TxFromBytesArray,
  createBlob4844TxFromSerializedNetworkWrapper,
  createEOACode7702TxFromBytesArray,
  createLegacyTxFromBytesArray,
  type TxOptions,
  type TypedTransaction,
} from "@ethereumjs/tx";
import { Address, bytesToBigInt, SECP256K1_ORDER_DIV_2 } from "@ethereumjs/util";
import { keccak256 } from "../crypto/keccak.js";
import { nativeCryptoAvailable, pad32, recoveryId } from "../crypto/native-crypto.js";
import type { SenderRecovery } from "../crypto/sender-recovery.js";
import { InvalidTransactionError } from "../errors/domain-errors.js";
import { signingHash } from "./signing-hash.js";

type FromValues = (values: never, opts: TxOptions) => TypedTransaction;

/** Constructors from decoded RLP fields, by EIP-2718 type (0: legacy). */
const FROM_VALUES = new Map<number, FromValues>([
  [0, createLegacyTxFromBytesArray as FromValues],
  [1, createAccessList2930TxFromBytesArray as FromValues],
  [2, create1559FeeMarketTxFromBytesArray as FromValues],
  [4, createEOACode7702TxFromBytesArray as FromValues],
]);

/** The EIP-2718 type of blob transactions (EIP-4844). */
const BLOB_TX_TYPE = 3;

/**
 * Largest accepted blob transaction in its network form, blobs and proofs included (geth's blob
 * pool limit); every other type is held to the node's `maxTxBytes`.
 */
export const BLOB_TX_MAX_BYTES = 1024 * 1024;

/**
 * Decodes a raw signed transaction (RLP legacy or EIP-2718 typed envelope) and checks what can never
 * change: size, type, chain id and signature. The sender is recovered here, once, and cached on the
 * object: on `recovery`'s worker threads when given and available (but for a transaction arriving
 * alone at an idle pool, {@link SenderRecovery.claimInline}), otherwise on this thread.
 *
 * A blob transaction must come in its network form, with its sidecar: `[tx, blobs, commitments,
 * proofs]` (EIP-4844) or `[tx, 1, blobs, commitments, cell proofs]` (EIP-7594). The KZG proofs are
 * verified and the commitments checked against the versioned hashes; the sidecar stays on the pooled
 * object and never reaches a block, which holds the transaction's canonical encoding.
 *
 * The returned object answers `getSenderAddress()` and (but for blob transactions) `serialize()` from
 * what decoding already established, instead of hashing the public key and re-encoding every field
 * each time the pool, the block builder and the store ask: the decoder accepts canonical RLP only, so
 * the received bytes are the encoding.
 */
export async function decodeRawTransaction(
  raw: Uint8Array,
  common: Common,
  maxBytes: number,
  recovery?: SenderRecovery,
): Promise<TypedTransaction> {
  if (raw.length === 0) throw new InvalidTransactionError("typed transaction too short");
  const first = raw[0]!;
  const blob = first === BLOB_TX_TYPE;
  if (raw.length > (blob ? Math.max(maxBytes, BLOB_TX_MAX_BYTES) : maxBytes))
    throw new InvalidTransactionError("oversized data");
  const typed = first <= 0x7f;
  const fromValues: FromValues | undefined = blob
    ? (_values, opts) => createBlob4844TxFromSerializedNetworkWrapper(raw, opts)
    : FROM_VALUES.get(typed ? first : 0);
  if (!fromValues || (blob && !common.isActivatedEIP(4844)))
    throw new InvalidTransactionError("transaction type not supported");
  let fields: unknown;
  try {
    fields = RLP.decode(typed ? raw.subarray(1) : raw);
  } catch (error) {
    throw new InvalidTransactionError(`rlp: ${(error as Error).message}`);
  }
  if (!Array.isArray(fields))
    throw new InvalidTransactionError("rlp: expected input list for types.Transaction");
  if (blob) fields = blobTxBody(fields);
  const body = fields as unknown[];
  const chainId = typed ? bytesOf(body[0]) : legacyChainId(bytesOf(body[6]));
  if (chainId !== undefined && chainId !== common.chainId())
    throw new InvalidTransactionError("invalid chain id for signer");
  let tx: TypedTransaction;
  try {
    tx = fromValues(fields as never, { common, freeze: false });
  } catch (error) {
    throw new InvalidTransactionError(`invalid transaction: ${cleanMessage(error)}`);
  }
  if (!tx.isSigned()) throw new InvalidTransactionError("invalid transaction v, r, s values");
  // A transaction arriving alone is recovered here when this thread recovers natively (the main
  // thread): quicker than the round trip to a worker.
  const workers =
    recovery?.available && !(nativeCryptoAvailable && recovery.claimInline()) ? recovery : undefined;
  const publicKey = workers
    ? await recoverOffThread(tx, workers, {
        hash: blob
          ? tx.getMessageToVerifySignature()
          : signingHash(raw, typed, body.length, typed ? undefined : chainId),
        r: body[body.length - 2] as Uint8Array,
        s: body[body.length - 1] as Uint8Array,
      })
    : recoverInThread(tx);
  const sender = new Address(keccak256(publicKey).subarray(12));
  return settle(tx, sender, blob ? undefined : Uint8Array.prototype.slice.call(raw));
}

/** The sender's 64-byte public key. */
function recoverInThread(tx: TypedTransaction): Uint8Array {
  try {
    return tx.getSenderPublicKey();
  } catch {
    throw new InvalidTransactionError("invalid sender");
  }
}

/**
 * The same checks and public key as @ethereumjs' `getSenderPublicKey`, with the curve work on a
 * worker. `signed` holds the hash the sender signed and the signature's `r` and `s` as received
 * (minimal big-endian bytes, which the transaction's constructor checked).
 */
async function recoverOffThread(
  tx: TypedTransaction,
  recovery: SenderRecovery,
  signed: { readonly hash: Uint8Array; readonly r: Uint8Array; readonly s: Uint8Array },
): Promise<Uint8Array> {
  const { v, s } = tx as { v: bigint; s: bigint };
  let signature: { r: Uint8Array; s: Uint8Array; recovery: number };
  try {
    // EIP-2: no high-s signatures since Homestead.
    if (s > SECP256K1_ORDER_DIV_2 && tx.common.gteHardfork("homestead")) throw new Error("high s");
    const chainId = tx.supports(Capability.EIP155ReplayProtection) ? tx.common.chainId() : undefined;
    signature = { r: pad32(signed.r), s: pad32(signed.s), recovery: recoveryId(v, chainId) };
  } catch {
    throw new InvalidTransactionError("invalid sender");
  }
  let publicKey: Uint8Array | undefined;
  try {
    publicKey = await recovery.recover({ hash: signed.hash, ...signature });
  } catch {
    // The workers stopped (shutdown or failure): the answer is still owed.
    return recoverInThread(tx);
  }
  if (!publicKey) throw new InvalidTransactionError("invalid sender");
  return publicKey;
}

/**
 * Fixes the sender and the encoding of a decoded transaction on the object, then freezes it (which
 * also lets @ethereumjs cache its hash).
 */
function settle(tx: TypedTransaction, sender: Address, encoding: Uint8Array | undefined): TypedTransaction {
  Object.defineProperty(tx, "getSenderAddress", { value: () => sender });
  if (encoding) Object.defineProperty(tx, "serialize", { value: () => encoding });
  Object.freeze(tx);
  return tx;
}

/** The transaction fields of a blob transaction's network form; the canonical form lacks a sidecar. */
function blobTxBody(fields: unknown[]): unknown[] {
  const withSidecar = (fields.length === 4 || fields.length === 5) && Array.isArray(fields[0]);
  if (!withSidecar) throw new InvalidTransactionError("missing sidecar in blob transaction");
  return fields[0] as unknown[];
}

function bytesOf(value: unknown): bigint | undefined {
  return value instanceof Uint8Array ? bytesToBigInt(value) : undefined;
}

function legacyChainId(v: bigint | undefined): bigint | undefined {
  if (v === undefined || v === 27n || v === 28n) return undefined;
  return v >= 35n ? (v - 35n) / 2n : -1n;
}

function cleanMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s*\(tx type=.*$/s, "");
}
