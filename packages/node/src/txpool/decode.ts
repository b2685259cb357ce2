import type { Common } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import {
  create1559FeeMarketTxFromBytesArray,
  createAccessList2930TxFromBytesArray,
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

/**
 * Decodes a raw signed transaction (RLP legacy or EIP-2718 typed envelope) and checks what can never
 * change: size, type, chain id and signature. The sender is recovered here, once, and cached on the object.
 */
export function decodeRawTransaction(raw: Uint8Array, common: Common, maxBytes: number): TypedTransaction {
  if (raw.length === 0) throw new InvalidTransactionError("typed transaction too short");
  if (raw.length > maxBytes) throw new InvalidTransactionError("oversized data");
  const first = raw[0]!;
  const typed = first <= 0x7f;
  const fromValues = FROM_VALUES.get(typed ? first : 0);
  if (!fromValues) throw new InvalidTransactionError("transaction type not supported");
  let fields: unknown;
  try {
    fields = RLP.decode(typed ? raw.subarray(1) : raw);
  } catch (error) {
    throw new InvalidTransactionError(`rlp: ${(error as Error).message}`);
  }
  if (!Array.isArray(fields))
    throw new InvalidTransactionError("rlp: expected input list for types.Transaction");
  const chainId = typed ? bytesOf(fields[0]) : legacyChainId(bytesOf(fields[6]));
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
