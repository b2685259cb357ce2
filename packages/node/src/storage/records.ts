import { RLP } from "@ethereumjs/rlp";
import { bigIntToUnpaddedBytes, bytesToBigInt, bytesToInt, intToBytes } from "@ethereumjs/util";

/** A log as stored: emitting address, topics and data. */
export interface StoredLog {
  readonly address: Uint8Array;
  readonly topics: readonly Uint8Array[];
  readonly data: Uint8Array;
}

/** Everything about one executed transaction that its block does not already hold. */
export interface StoredReceipt {
  readonly type: number;
  readonly status: 0 | 1;
  readonly cumulativeGasUsed: bigint;
  readonly gasUsed: bigint;
  readonly logs: readonly StoredLog[];
  /** The recovered sender, kept so reads never recover signatures again. */
  readonly sender: Uint8Array;
  readonly contractAddress: Uint8Array | undefined;
  /** The transaction's hash, kept so log queries never rebuild the block to learn it. */
  readonly txHash: Uint8Array;
  /**
   * Receipts from before Byzantium (EIP-658): the state root after the transaction, which such
   * receipts carry instead of a status. Absent from every later receipt.
   */
  readonly postState?: Uint8Array;
}

type Nested = Uint8Array | Nested[];

/** RLP-encodes the receipts of one block. */
export function encodeReceipts(receipts: readonly StoredReceipt[]): Uint8Array {
  return RLP.encode(
    receipts.map((r) => [
      intToBytes(r.type),
      intToBytes(r.status),
      bigIntToUnpaddedBytes(r.cumulativeGasUsed),
      bigIntToUnpaddedBytes(r.gasUsed),
      r.logs.map((l) => [l.address, [...l.topics], l.data]),
      r.sender,
      r.contractAddress ?? new Uint8Array(),
      r.txHash,
      // An optional ninth item: receipts written before it existed decode unchanged.
      ...(r.postState ? [r.postState] : []),
    ]),
  );
}

/** Decodes what {@link encodeReceipts} wrote. */
export function decodeReceipts(bytes: Uint8Array): StoredReceipt[] {
  const list = RLP.decode(bytes) as Nested[];
  return list.map((entry) => {
    const [type, status, cumulative, gasUsed, logs, sender, contract, txHash, postState] = entry as [
      Uint8Array,
      Uint8Array,
      Uint8Array,
      Uint8Array,
      Nested[],
      Uint8Array,
      Uint8Array,
      Uint8Array,
      Uint8Array | undefined,
    ];
    return {
      type: type.length === 0 ? 0 : bytesToInt(type),
      status: (status.length === 0 ? 0 : bytesToInt(status)) as 0 | 1,
      cumulativeGasUsed: bytesToBigInt(cumulative),
      gasUsed: bytesToBigInt(gasUsed),
      logs: logs.map((l) => {
        const [address, topics, data] = l as [Uint8Array, Uint8Array[], Uint8Array];
        return { address, topics, data };
      }),
      sender,
      contractAddress: contract.length === 0 ? undefined : contract,
      txHash,
      ...(postState ? { postState } : {}),
    };
  });
}

/** Where a transaction lives: its block and index. */
export interface TxLocation {
  readonly blockHash: Uint8Array;
  readonly index: number;
}

/** Encodes a {@link TxLocation} as 32 hash bytes followed by a 4-byte index. */
export function encodeTxLocation(location: TxLocation): Uint8Array {
  const out = new Uint8Array(36);
  out.set(location.blockHash, 0);
  new DataView(out.buffer).setUint32(32, location.index);
  return out;
}

/** Decodes what {@link encodeTxLocation} wrote. */
export function decodeTxLocation(bytes: Uint8Array): TxLocation {
  return {
    blockHash: bytes.slice(0, 32),
    index: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(32),
  };
}

/** A block number as an 8-byte big-endian key, so keys sort by number. */
export function numberKey(n: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, n);
  return out;
}

/** What a log needs to know about its block: hash, number and timestamp. */
export interface BlockRef {
  readonly hash: Uint8Array;
  readonly number: bigint;
  readonly timestamp: bigint;
}

/** Encodes a canonical index entry: the block hash, then its timestamp (8 bytes). */
export function encodeCanonical(hash: Uint8Array, timestamp: bigint): Uint8Array {
  const out = new Uint8Array(40);
  out.set(hash, 0);
  new DataView(out.buffer).setBigUint64(32, timestamp);
  return out;
}

/** Decodes what {@link encodeCanonical} wrote, for block `number`. */
export function decodeCanonical(number: bigint, bytes: Uint8Array): BlockRef {
  return {
    hash: bytes.subarray(0, 32),
    number,
    timestamp: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(32),
  };
}
