import type { Block } from "@ethereumjs/block";
import { equalsBytes } from "@ethereumjs/util";
import type { KVStore, WriteOp } from "./kv.js";
import type { StoredReceipt } from "./records.js";

/**
 * Key kinds of the address index (bucket `addressIndex`):
 * - POSITION | address | block (8) | tx index (4): the transactions an address sent, received or created,
 * - NONCE    | sender | nonce (8) -> tx hash,
 * - CREATOR  | contract -> tx hash | creator (the top-level deployments).
 */
const POSITION = 0x00;
const NONCE = 0x02;
const CREATOR = 0x03;
const EMPTY = new Uint8Array();
/** Blocks scanned by the first window of a backwards search; each further window doubles. */
const FIRST_WINDOW = 16n;

/** A transaction's position: block number and index in the block. */
export interface TxPosition {
  readonly block: bigint;
  readonly index: number;
}

/** A contract's deployment: the transaction and the account that created it. */
export interface ContractCreation {
  readonly txHash: Uint8Array;
  readonly creator: Uint8Array;
}

function positionKey(address: Uint8Array, block: bigint, index: number): Uint8Array {
  const key = new Uint8Array(33);
  key[0] = POSITION;
  key.set(address, 1);
  const view = new DataView(key.buffer);
  view.setBigUint64(21, block);
  view.setUint32(29, index);
  return key;
}

function prefixed(kind: number, address: Uint8Array, suffix: Uint8Array = EMPTY): Uint8Array {
  const key = new Uint8Array(21 + suffix.length);
  key[0] = kind;
  key.set(address, 1);
  key.set(suffix, 21);
  return key;
}

function u64(n: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, n);
  return out;
}

/**
 * The index entries of one block: for each transaction its sender, recipient and created contract
 * (one key each, deduplicated), its (sender, nonce) and the deployments.
 */
export function addressIndexWrites(block: Block, receipts: readonly StoredReceipt[]): WriteOp[] {
  const ops: WriteOp[] = [];
  const number = block.header.number;
  block.transactions.forEach((tx, index) => {
    const receipt = receipts[index];
    if (!receipt) return;
    const { sender, contractAddress: created, txHash } = receipt;
    const to = tx.to?.bytes;
    ops.push({ bucket: "addressIndex", key: positionKey(sender, number, index), value: EMPTY });
    if (to && !equalsBytes(to, sender)) {
      ops.push({ bucket: "addressIndex", key: positionKey(to, number, index), value: EMPTY });
    }
    ops.push({ bucket: "addressIndex", key: prefixed(NONCE, sender, u64(tx.nonce)), value: txHash });
    if (created) {
      ops.push({ bucket: "addressIndex", key: positionKey(created, number, index), value: EMPTY });
      const value = new Uint8Array(52);
      value.set(txHash, 0);
      value.set(sender, 32);
      ops.push({ bucket: "addressIndex", key: prefixed(CREATOR, created), value });
    }
  });
  return ops;
}

function decodePosition(key: Uint8Array): TxPosition {
  const view = new DataView(key.buffer, key.byteOffset, key.byteLength);
  return { block: view.getBigUint64(21), index: view.getUint32(29) };
}

/**
 * Positions of the transactions that touch `address`, newest first, in blocks `< before` (all
 * blocks when `before` is undefined) and `<= head`. The store scans forward only, so the blocks are
 * read in windows going back from `before`, each twice as long as the last.
 */
export function* positionsBefore(
  kv: KVStore,
  address: Uint8Array,
  before: bigint | undefined,
  head: bigint,
): Generator<TxPosition> {
  let end = before === undefined || before > head + 1n ? head + 1n : before;
  let span = FIRST_WINDOW;
  // Block 0 (genesis) has no transactions.
  while (end > 1n) {
    const start = end - span > 1n ? end - span : 1n;
    const keys = [...kv.keys("addressIndex", positionKey(address, start, 0), positionKey(address, end, 0))];
    for (let i = keys.length - 1; i >= 0; i--) yield decodePosition(keys[i]!);
    end = start;
    span *= 2n;
  }
}

/** Positions of the transactions that touch `address`, oldest first, in blocks `> after` and `<= head`. */
export function* positionsAfter(
  kv: KVStore,
  address: Uint8Array,
  after: bigint,
  head: bigint,
): Generator<TxPosition> {
  if (after >= head) return;
  const start = positionKey(address, after + 1n, 0);
  const end = positionKey(address, head + 1n, 0);
  for (const key of kv.keys("addressIndex", start, end)) yield decodePosition(key);
}

/** The hash of the transaction `sender` sent with `nonce`. */
export function txBySenderAndNonce(kv: KVStore, sender: Uint8Array, nonce: bigint): Uint8Array | undefined {
  return kv.get("addressIndex", prefixed(NONCE, sender, u64(nonce)));
}

/** The top-level transaction that deployed `contract`, and its sender. */
export function contractCreation(kv: KVStore, contract: Uint8Array): ContractCreation | undefined {
  const value = kv.get("addressIndex", prefixed(CREATOR, contract));
  return value ? { txHash: value.subarray(0, 32), creator: value.subarray(32, 52) } : undefined;
}
