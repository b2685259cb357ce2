/** A `0x`-prefixed hex string. */
export type Hex = `0x${string}`;

const HEX_CHARS = "0123456789abcdef";
const BYTE_HEX: string[] = Array.from({ length: 256 }, (_, i) => HEX_CHARS[i >> 4]! + HEX_CHARS[i & 15]!);

/** Encodes a non-negative integer as an EIP-1474 quantity (`0x0`, `0x1a`, never leading zeros). */
export function toQuantity(value: bigint | number): Hex {
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a quantity: ${value}`);
    return `0x${value.toString(16)}`;
  }
  if (value < 0n) throw new RangeError(`not a quantity: ${value}`);
  return `0x${value.toString(16)}`;
}

/** Encodes bytes as `0x`-prefixed lowercase hex data (`0x` for empty). */
export function toData(bytes: Uint8Array): Hex {
  let out = "0x";
  for (let i = 0; i < bytes.length; i++) out += BYTE_HEX[bytes[i]!];
  return out as Hex;
}

const QUANTITY_RE = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/;
const DATA_RE = /^0x([0-9a-fA-F]{2})*$/;

/** True when `value` is a strict EIP-1474 quantity string. */
export function isQuantity(value: string): boolean {
  return QUANTITY_RE.test(value);
}

/** True when `value` is `0x`-prefixed hex data of whole bytes, optionally of exactly `length` bytes. */
export function isData(value: string, length?: number): boolean {
  if (!DATA_RE.test(value)) return false;
  return length === undefined || value.length === 2 + length * 2;
}

/** Decodes a strict quantity into a bigint; throws a `RangeError` naming the problem otherwise. */
export function parseQuantity(value: string): bigint {
  if (!QUANTITY_RE.test(value)) throw new RangeError(quantityProblem(value));
  return BigInt(value);
}

/** Explains in geth's words why `value` is not a quantity. */
export function quantityProblem(value: string): string {
  if (!value.startsWith("0x") && !value.startsWith("0X")) return "hex string without 0x prefix";
  if (value.length === 2) return 'hex string "0x"';
  if (value.length > 3 && value[2] === "0") return "hex number with leading zero digits";
  if (value.length > 66) return "hex number > 256 bits";
  return "invalid hex string";
}

/** Decodes `0x` hex data into bytes; the caller validates the format first. */
export function hexToBytes(value: string): Uint8Array {
  const len = (value.length - 2) >> 1;
  const out = new Uint8Array(len);
  for (let i = 0; i < len; i++) {
    const byte = Number.parseInt(value.slice(2 + i * 2, 4 + i * 2), 16);
    if (Number.isNaN(byte)) throw new RangeError("invalid hex string");
    out[i] = byte;
  }
  return out;
}
