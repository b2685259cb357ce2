/** The named key spaces of the chain store. */
export const BUCKETS = [
  "meta",
  "blocks",
  "canonical",
  "receipts",
  "txIndex",
  "trie",
  "logIndex",
  "addressIndex",
  "votes",
  "stateEdits",
] as const;
/** One of {@link BUCKETS}. */
export type Bucket = (typeof BUCKETS)[number];

/** One write of an atomic commit; a `null` value deletes the key. */
export interface WriteOp {
  readonly bucket: Bucket;
  readonly key: Uint8Array;
  readonly value: Uint8Array | null;
}

/** How a {@link KVStore.commit} is made. */
export interface CommitOptions {
  /**
   * Apply the writes on the store's own thread: the calling thread only hands them over, and goes
   * on with other work while they are written (a run of blocks, whose commit the producer overlaps
   * with building the next run). Reads see them from the start. No other commit may write the same
   * keys before this one resolves.
   */
  readonly background?: boolean;
}

/**
 * A byte key-value store with named buckets. Reads see the last commit (and a background commit
 * from its start); `commit` applies all of its writes atomically, or none of them, and resolves once
 * they are committed (on disk, for a persistent store: durable against a power loss).
 */
export interface KVStore {
  get(bucket: Bucket, key: Uint8Array): Uint8Array | undefined;
  /** The keys in `[start, end)`, in byte order. */
  keys(bucket: Bucket, start: Uint8Array, end: Uint8Array): Iterable<Uint8Array>;
  commit(ops: readonly WriteOp[], options?: CommitOptions): Promise<void>;
  close(): Promise<void>;
}
