import { createHash, hash, randomBytes, timingSafeEqual } from "node:crypto";

/** Prefix of every API key, so a leaked key is recognisable in logs and secret scanners. */
export const API_KEY_PREFIX = "strata_";

/** A new random API key: the prefix and 32 random bytes in base64url (256 bits of entropy). */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString("base64url");
}

/** The SHA-256 digest under which a key is stored; the clear key is never stored. */
export function hashApiKey(key: string): Buffer {
  return createHash("sha256").update(key, "utf8").digest();
}

/** {@link hashApiKey} in base64, computed in one call (the per-request path of key lookups). */
export function hashApiKeyBase64(key: string): string {
  return hash("sha256", key, "base64");
}

/** Compares two digests in constant time. */
export function digestsEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
