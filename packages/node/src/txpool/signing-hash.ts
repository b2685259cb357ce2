import { RLP } from "@ethereumjs/rlp";
import { bigIntToUnpaddedBytes, concatBytes } from "@ethereumjs/util";
import { keccak256 } from "../crypto/keccak.js";

/** Fields at the end of every signed transaction's RLP list: `v` (or `yParity`), `r`, `s`. */
const SIGNATURE_FIELDS = 3;
/** RLP of two empty strings: the `0, 0` that EIP-155 puts in place of `r, s` in the signed list. */
const EIP155_EMPTY_RS = Uint8Array.of(0x80, 0x80);

/**
 * The hash a sender signed, cut from the transaction's received encoding instead of re-encoding its
 * decoded fields (what @ethereumjs' `getHashedMessageToSign` does, going through hex strings for
 * every number): the signed message is the same RLP list without its three signature fields.
 *
 * - `encoding`: the raw transaction, an EIP-2718 typed envelope when `typed`, else a legacy RLP list.
 * - `fields`: how many fields the outer list holds (from decoding it).
 * - `eip155ChainId`: for legacy transactions signed under EIP-155, the chain id, which the signed
 *   list carries with two empty strings after the first six fields.
 *
 * Not for blob transactions in their network form: their transaction list is nested in the wrapper.
 */
export function signingHash(
  encoding: Uint8Array,
  typed: boolean,
  fields: number,
  eip155ChainId: bigint | undefined,
): Uint8Array {
  const list = typed ? encoding.subarray(1) : encoding;
  let at = listPayloadStart(list);
  const start = at;
  for (let i = 0; i < fields - SIGNATURE_FIELDS; i++) at += itemLength(list, at);
  const unsigned = list.subarray(start, at);
  const tail =
    eip155ChainId === undefined
      ? new Uint8Array(0)
      : concatBytes(RLP.encode(bigIntToUnpaddedBytes(eip155ChainId)), EIP155_EMPTY_RS);
  const header = listHeader(unsigned.length + tail.length);
  return keccak256(
    typed
      ? concatBytes(encoding.subarray(0, 1), header, unsigned, tail)
      : concatBytes(header, unsigned, tail),
  );
}

/** Offset of the first item inside the RLP list that `list` starts with. */
function listPayloadStart(list: Uint8Array): number {
  const prefix = list[0]!;
  if (prefix < 0xc0) throw new Error("not an RLP list");
  return prefix <= 0xf7 ? 1 : 1 + (prefix - 0xf7);
}

/** Bytes taken by the RLP item at `at`, header included. */
function itemLength(bytes: Uint8Array, at: number): number {
  const prefix = bytes[at]!;
  if (prefix < 0x80) return 1;
  if (prefix <= 0xb7) return 1 + prefix - 0x80;
  if (prefix < 0xc0) return longItemLength(bytes, at, prefix - 0xb7);
  if (prefix <= 0xf7) return 1 + prefix - 0xc0;
  return longItemLength(bytes, at, prefix - 0xf7);
}

/** Length of an item whose header gives its payload length in `lengthBytes` big-endian bytes. */
function longItemLength(bytes: Uint8Array, at: number, lengthBytes: number): number {
  let length = 0;
  for (let i = 1; i <= lengthBytes; i++) length = length * 256 + bytes[at + i]!;
  return 1 + lengthBytes + length;
}

/** The RLP header of a list whose items take `length` bytes. */
function listHeader(length: number): Uint8Array {
  if (length <= 55) return Uint8Array.of(0xc0 + length);
  const digits: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) digits.unshift(rest % 256);
  return Uint8Array.of(0xf7 + digits.length, ...digits);
}
