import { BadRequestError } from "./rest-errors.js";

/** Default and largest page of a list. */
export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HASH = /^0x[0-9a-fA-F]{64}$/;

/** `?limit=` of a list: 1..100, default 25. */
export function limitParam(url: URL): number {
  return intParam(url, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT);
}

/** An integer query argument within bounds, or its default. */
export function intParam(url: URL, name: string, fallback: number, min: number, max: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) {
    throw new BadRequestError(`${name}: expected an integer in ${min}..${max}, got "${raw}"`);
  }
  return n;
}

/** A percent-decoded path segment; bad percent-encoding (`%zz`, a cut `%e2%82`) is a 400 naming `what`. */
export function pathSegment(raw: string, what: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new BadRequestError(`${what}: bad percent-encoding in "${raw}"`);
  }
}

/** A 20-byte hex address, lowercased; `what` names it in the error. */
export function addressParam(raw: string, what = "address"): string {
  if (!ADDRESS.test(raw))
    throw new BadRequestError(`${what}: expected a 0x-prefixed 20-byte hex address, got "${raw}"`);
  return raw.toLowerCase();
}

/** A 32-byte hex hash, lowercased. */
export function hashParam(raw: string, what = "hash"): string {
  if (!HASH.test(raw))
    throw new BadRequestError(`${what}: expected a 0x-prefixed 32-byte hex hash, got "${raw}"`);
  return raw.toLowerCase();
}

/** Whether `raw` is an address / a hash / a block number. */
export const isAddress = (raw: string) => ADDRESS.test(raw);
export const isHash = (raw: string) => HASH.test(raw);
export const isBlockNumber = (raw: string) =>
  /^(0|[1-9]\d{0,17})$/.test(raw) || /^0x[0-9a-fA-F]{1,15}$/.test(raw);

/** A block number (decimal or 0x hex) or a block hash. */
export function blockIdParam(raw: string): bigint | string {
  if (isBlockNumber(raw)) return BigInt(raw);
  if (isHash(raw)) return raw.toLowerCase();
  throw new BadRequestError(`numberOrHash: expected a block number or a 32-byte block hash, got "${raw}"`);
}

/**
 * Cursors are opaque to clients; inside they are `<block>:<index>` (or `<block>:<address>` for
 * tokens, `<id>` for DePIN nodes): the position of the previous page's last row.
 */
export function positionCursor(url: URL): { block: bigint; index: number } | undefined {
  const raw = url.searchParams.get("cursor");
  if (raw === null || raw === "") return undefined;
  const match = /^(\d{1,18}):(\d{1,9})$/.exec(raw);
  if (!match) throw new BadRequestError(`cursor: not a cursor this API returned: "${raw}"`);
  return { block: BigInt(match[1]!), index: Number(match[2]) };
}

/** A block-number cursor. */
export function blockCursor(url: URL): bigint | undefined {
  const raw = url.searchParams.get("cursor");
  if (raw === null || raw === "") return undefined;
  if (!/^\d{1,18}$/.test(raw)) throw new BadRequestError(`cursor: not a cursor this API returned: "${raw}"`);
  return BigInt(raw);
}

/** A token-list cursor `<block>:<address>`. */
export function tokenCursor(url: URL): { block: bigint; address: string } | undefined {
  const raw = url.searchParams.get("cursor");
  if (raw === null || raw === "") return undefined;
  const match = /^(\d{1,18}):(0x[0-9a-f]{40})$/.exec(raw);
  if (!match) throw new BadRequestError(`cursor: not a cursor this API returned: "${raw}"`);
  return { block: BigInt(match[1]!), address: match[2]! };
}

/** An optional text filter from a fixed set of values. */
export function enumParam<T extends string>(url: URL, name: string, allowed: readonly T[]): T | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return undefined;
  if (!allowed.includes(raw as T)) {
    throw new BadRequestError(`${name}: expected one of ${allowed.join(", ")}, got "${raw}"`);
  }
  return raw as T;
}
