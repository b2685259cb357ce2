import type { Common } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import {
  create1559FeeMarketTxFromBytesArray,
  createAccessList2930TxFromBytesArray,
  createBlob4844TxFromSerializedNetworkWrapper,
  createEOACode7702TxFromBytesArray,
  createLegacyTxFromBytesArray,
  type TxOptions,
  type TypedTransaction,
} from "@ethereumjs/tx";
import { bytesToBigInt } from "@ethereumjs/util";
import { InvalidTransactionError } from "../errors/domain-errors.js";

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
 * change: size, type, chain id and signature. The sender is recovered here, once, and cached on the object.
 *
 * A blob transaction must come in its network form, with its sidecar: `[tx, blobs, commitments,
 * proofs]` (EIP-4844) or `[tx, 1, blobs, commitments, cell proofs]` (EIP-7594). The KZG proofs are
 * verified and the commitments checked against the versioned hashes; the sidecar stays on the pooled
 * object and never reaches a block, which holds the transaction's canonical encoding.
 */
export function decodeRawTransaction(raw: Uint8Array, common: Common, maxBytes: number): TypedTransaction {
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
    tx = fromValues(fields as never, { common });
  } catch (error) {
    throw new InvalidTransactionError(`invalid transaction: ${cleanMessage(error)}`);
  }
  if (!tx.isSigned()) throw new InvalidTransactionError("invalid transaction v, r, s values");
  try {
    tx.getSenderAddress();
  } catch {
    throw new InvalidTransactionError("invalid sender");
  }
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
