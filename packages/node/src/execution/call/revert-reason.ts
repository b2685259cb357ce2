import { decodeAbiParameters } from "viem";

const ERROR_SELECTOR = "08c379a0";
const PANIC_SELECTOR = "4e487b71";

const PANIC_REASONS: Record<number, string> = {
  0: "generic panic",
  1: "assert(false)",
  17: "arithmetic underflow or overflow",
  18: "division or modulo by zero",
  33: "enum overflow",
  34: "invalid encoded storage byte array accessed",
  49: "out-of-bounds array access; popping on an empty array",
  50: "out-of-bounds access of an array or bytesN",
  65: "out of memory",
  81: "uninitialized function",
};

/**
 * Decodes the human-readable reason of revert data as geth does: `Error(string)` gives the string,
 * `Panic(uint256)` a description of the code; custom errors and empty data give none.
 */
export function decodeRevertReason(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined;
  const hex = Buffer.from(data).toString("hex");
  const selector = hex.slice(0, 8);
  try {
    if (selector === ERROR_SELECTOR) {
      const [reason] = decodeAbiParameters([{ type: "string" }], `0x${hex.slice(8)}`);
      return reason;
    }
    if (selector === PANIC_SELECTOR) {
      const [code] = decodeAbiParameters([{ type: "uint256" }], `0x${hex.slice(8)}`);
      const known = PANIC_REASONS[Number(code)];
      return known
        ? `${known} (0x${code.toString(16).padStart(2, "0")})`
        : `unknown panic code: 0x${code.toString(16)}`;
    }
  } catch {
    return undefined;
  }
  return undefined;
}
