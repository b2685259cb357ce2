import type { Block } from "@ethereumjs/block";
import { RLP } from "@ethereumjs/rlp";
import { type Blob4844Tx, TransactionType, type TypedTransaction } from "@ethereumjs/tx";
import { bytesToHex } from "@ethereumjs/util";
import { BLOB_TX_MAX_BYTES } from "../txpool/decode.js";

/** Version suffix of every Strata protocol id and topic. */
const VERSION = "1";

/** Largest status message, bytes. */
export const MAX_STATUS_BYTES = 1024;
/** Largest blocks-by-range request, bytes. */
export const MAX_RANGE_REQUEST_BYTES = 256;
/** Largest block accepted from a peer (gossip or sync), RLP bytes. */
export const MAX_BLOCK_BYTES = 4 * 1024 * 1024;
/** Most blocks one blocks-by-range request may ask for. */
export const MAX_RANGE_BLOCKS = 64;
/** Most bytes of blocks one blocks-by-range response carries (it stops early past this). */
export const MAX_RANGE_RESPONSE_BYTES = 16 * 1024 * 1024;
/** Seconds a gossiped block's timestamp may lie ahead of this node's clock. */
export const MAX_FUTURE_SECONDS = 15n;

/** Protocol ids of the request/response streams. */
export const PROTOCOLS = {
  status: `/strata/status/${VERSION}`,
  blocksByRange: `/strata/blocks-by-range/${VERSION}`,
  transactions: `/strata/transactions/${VERSION}`,
} as const;

/** Most transactions one push on the transactions protocol carries. */
export const MAX_PUSHED_TRANSACTIONS = 1024;
/** Most transactions one gossip message on the transactions topic carries. */
export const MAX_GOSSIP_TRANSACTIONS = 256;
/** Bytes of transactions past which a node sends the gossip message it is filling. */
export const GOSSIP_BATCH_BYTES = 1024 * 1024;

/**
 * How a transaction travels between nodes: a blob transaction in its network form, with its sidecar
 * (blobs, commitments, proofs), as `eth_sendRawTransaction` takes it; any other as its canonical
 * encoding. Undefined for a blob transaction without its sidecar (one taken back from a dropped
 * block), which no peer would accept.
 */
export function wireFormOf(tx: TypedTransaction): Uint8Array | undefined {
  if (tx.type !== TransactionType.BlobEIP4844) return tx.serialize();
  const blob = tx as Blob4844Tx;
  return blob.blobs === undefined || blob.networkWrapperVersion === undefined
    ? undefined
    : blob.serializeNetworkWrapper();
}

/**
 * The largest raw transaction a peer may send: `maxTxBytes`, or for a blob transaction (type 3, which
 * travels with its sidecar) {@link BLOB_TX_MAX_BYTES}, as `eth_sendRawTransaction` allows.
 */
export function maxWireTxBytes(raw: Uint8Array, maxTxBytes: number): number {
  return raw[0] === TransactionType.BlobEIP4844 ? Math.max(maxTxBytes, BLOB_TX_MAX_BYTES) : maxTxBytes;
}

/** The transactions topic's payload: an RLP list of raw signed transactions. */
export function encodeTransactionBatch(raws: readonly Uint8Array[]): Uint8Array {
  return RLP.encode(raws as Uint8Array[]);
}

/**
 * Parses a transactions topic payload into raw transactions; throws {@link WireError} when it is not
 * an RLP list of at most {@link MAX_GOSSIP_TRANSACTIONS} byte strings of at most `maxTxBytes` each
 * (a blob transaction with its sidecar: {@link maxWireTxBytes}).
 */
export function decodeTransactionBatch(bytes: Uint8Array, maxTxBytes: number): Uint8Array[] {
  let list: unknown;
  try {
    list = RLP.decode(bytes);
  } catch {
    throw new WireError("transaction batch is not RLP");
  }
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_GOSSIP_TRANSACTIONS)
    throw new WireError(`transaction batch must list 1..${MAX_GOSSIP_TRANSACTIONS} transactions`);
  for (const raw of list)
    if (!(raw instanceof Uint8Array) || raw.length === 0 || raw.length > maxWireTxBytes(raw, maxTxBytes))
      throw new WireError("transaction batch holds a malformed or oversized transaction");
  return list as Uint8Array[];
}

/** Gossip topics of one chain: the genesis hash is part of the name, so chains never mix. */
export interface Topics {
  readonly transactions: string;
  readonly blocks: string;
  readonly votes: string;
}

/** The gossip topic names of the chain with `genesisHash`. */
export function topicsFor(genesisHash: Uint8Array): Topics {
  const chain = bytesToHex(genesisHash).slice(2, 18);
  return {
    transactions: `/strata/${chain}/transactions/${VERSION}`,
    blocks: `/strata/${chain}/blocks/${VERSION}`,
    votes: `/strata/${chain}/votes/${VERSION}`,
  };
}

/** A block reference in a status message. */
export interface BlockRef {
  readonly number: bigint;
  readonly hash: string;
}

/** What two peers exchange first: the chain they are on and how far they are. */
export interface Status {
  readonly chainId: number;
  readonly genesis: string;
  readonly head: BlockRef;
  readonly finalized: BlockRef;
}

/** A block as a {@link BlockRef}. */
export function refOf(block: Block): BlockRef {
  return { number: block.header.number, hash: bytesToHex(block.hash()) };
}

/** JSON bytes of a status message. */
export function encodeStatus(status: Status): Uint8Array {
  const ref = (r: BlockRef) => ({ number: `0x${r.number.toString(16)}`, hash: r.hash });
  return new TextEncoder().encode(
    JSON.stringify({
      chainId: status.chainId,
      genesis: status.genesis,
      head: ref(status.head),
      finalized: ref(status.finalized),
    }),
  );
}

/** Parses a status message; throws {@link WireError} on anything malformed. */
export function decodeStatus(bytes: Uint8Array): Status {
  if (bytes.length > MAX_STATUS_BYTES) throw new WireError(`status of ${bytes.length} bytes`);
  const value = parseJson(bytes) as Record<string, unknown>;
  if (typeof value.chainId !== "number" || !Number.isSafeInteger(value.chainId))
    throw new WireError("status without a chain id");
  return {
    chainId: value.chainId,
    genesis: hash(value.genesis, "genesis"),
    head: blockRef(value.head, "head"),
    finalized: blockRef(value.finalized, "finalized"),
  };
}

/** A blocks-by-range request: `count` canonical blocks from `from`. */
export interface RangeRequest {
  readonly from: bigint;
  readonly count: number;
}

/** JSON bytes of a blocks-by-range request. */
export function encodeRangeRequest(request: RangeRequest): Uint8Array {
  return new TextEncoder().encode(
    JSON.stringify({ from: `0x${request.from.toString(16)}`, count: request.count }),
  );
}

/** Parses a blocks-by-range request; throws {@link WireError} when malformed or beyond the limits. */
export function decodeRangeRequest(bytes: Uint8Array): RangeRequest {
  if (bytes.length > MAX_RANGE_REQUEST_BYTES) throw new WireError(`range request of ${bytes.length} bytes`);
  const value = parseJson(bytes) as Record<string, unknown>;
  const count = value.count;
  if (typeof count !== "number" || !Number.isInteger(count) || count < 1 || count > MAX_RANGE_BLOCKS)
    throw new WireError(`range request count must be 1..${MAX_RANGE_BLOCKS}`);
  return { from: quantity(value.from, "from"), count };
}

/** A message from a peer that does not follow the wire format. */
export class WireError extends Error {}

function parseJson(bytes: Uint8Array): unknown {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new WireError("not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new WireError("not an object");
  return value;
}

function hash(value: unknown, field: string): string {
  if (typeof value !== "string" || !/^0x[0-9a-f]{64}$/.test(value)) throw new WireError(`bad ${field} hash`);
  return value;
}

function quantity(value: unknown, field: string): bigint {
  if (typeof value !== "string" || !/^0x[0-9a-f]{1,16}$/.test(value)) throw new WireError(`bad ${field}`);
  return BigInt(value);
}

function blockRef(value: unknown, field: string): BlockRef {
  if (typeof value !== "object" || value === null) throw new WireError(`bad ${field}`);
  const ref = value as Record<string, unknown>;
  return { number: quantity(ref.number, `${field} number`), hash: hash(ref.hash, `${field}`) };
}
