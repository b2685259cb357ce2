import type { KVStore, WriteOp } from "./kv.js";
import type { StoredReceipt } from "./records.js";
import { numberKey } from "./records.js";

/** Key kinds of the log index: blocks with logs, emitting addresses, topics by position (0..3). */
const BLOCK = 0xff;
const ADDRESS = 0xfe;
const EMPTY = new Uint8Array();

/** Address and topic criteria as bytes (each a list of alternatives; empty or null = any). */
export interface IndexCriteria {
  readonly addresses: readonly Uint8Array[];
  readonly topics: readonly (readonly Uint8Array[] | null)[];
}

function key(kind: number, value: Uint8Array, block: bigint): Uint8Array {
  const out = new Uint8Array(1 + value.length + 8);
  out[0] = kind;
  out.set(value, 1);
  out.set(numberKey(block), 1 + value.length);
  return out;
}

/** The index entries of one block's logs: one per distinct address and per distinct (position, topic). */
export function logIndexWrites(block: bigint, receipts: readonly StoredReceipt[]): WriteOp[] {
  const seen = new Set<string>();
  const ops: WriteOp[] = [];
  const add = (kind: number, value: Uint8Array) => {
    const k = key(kind, value, block);
    const id = Buffer.from(k).toString("hex");
    if (seen.has(id)) return;
    seen.add(id);
    ops.push({ bucket: "logIndex", key: k, value: EMPTY });
  };
  for (const receipt of receipts) {
    for (const log of receipt.logs) {
      add(ADDRESS, log.address);
      log.topics.forEach((topic, position) => {
        add(position, topic);
      });
    }
  }
  if (ops.length > 0) add(BLOCK, EMPTY);
  return ops;
}

function blocksWith(kv: KVStore, kind: number, value: Uint8Array, from: bigint, to: bigint): Set<bigint> {
  const out = new Set<bigint>();
  const prefix = 1 + value.length;
  for (const k of kv.keys("logIndex", key(kind, value, from), key(kind, value, to + 1n))) {
    out.add(new DataView(k.buffer, k.byteOffset + prefix, 8).getBigUint64(0));
  }
  return out;
}

function union(
  kv: KVStore,
  kind: number,
  values: readonly Uint8Array[],
  from: bigint,
  to: bigint,
): Set<bigint> {
  const out = new Set<bigint>();
  for (const value of values) for (const block of blocksWith(kv, kind, value, from, to)) out.add(block);
  return out;
}

/**
 * The blocks in `[from, to]` that may hold a log matching `criteria`, ascending, from the index:
 * each address or topic position narrows the set; with no criteria, every block that has logs.
 */
export function candidateBlocks(kv: KVStore, criteria: IndexCriteria, from: bigint, to: bigint): bigint[] {
  let result: Set<bigint> | undefined;
  const narrow = (set: Set<bigint>) => {
    result = result === undefined ? set : new Set([...result].filter((b) => set.has(b)));
  };
  if (criteria.addresses.length > 0) narrow(union(kv, ADDRESS, criteria.addresses, from, to));
  criteria.topics.forEach((alternatives, position) => {
    if (alternatives && alternatives.length > 0 && result?.size !== 0)
      narrow(union(kv, position, alternatives, from, to));
  });
  const blocks = result ?? blocksWith(kv, BLOCK, EMPTY, from, to);
  return [...blocks].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
