import { randomBytes } from "node:crypto";

/**
 * A new random filter or subscription id: `0x` and 32 hex characters (16 bytes from the system's
 * CSPRNG). The first digit is never zero, so the id is also a valid quantity, which is how
 * execution-apis types these identifiers (geth strips leading zeros for the same reason).
 */
export function newRpcId(): string {
  for (;;) {
    const id = randomBytes(16);
    if (id[0]! >= 0x10) return `0x${id.toString("hex")}`;
  }
}
