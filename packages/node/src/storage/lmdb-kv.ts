import { mkdirSync } from "node:fs";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { type Database, open, type RootDatabase } from "lmdb";
import { BUCKETS, type Bucket, type CommitOptions, type KVStore, type WriteOp } from "./kv.js";

/**
 * A {@link KVStore} on LMDB: one environment under `path`, one named database per bucket. Each
 * `commit` is one LMDB write transaction, so a crash leaves either the whole commit or none of it;
 * LMDB commits and flushes it off the main thread, which keeps serving reads meanwhile.
 *
 * lmdb-js runs with `overlappingSync` on Linux and macOS: a write transaction resolves once it is
 * visible, and its fsync follows on LMDB's thread. After a power loss (a new boot id) LMDB reopens at
 * the last *flushed* transaction, so a commit that had only become visible is forgotten. `commit`
 * therefore resolves only once its transaction is flushed: the chain announces a block (newHeads,
 * receipts) after it is durable. One flush per commit, and the chain commits once per block.
 * `durableCommits: false` (chain import, which announces nothing and can be rerun) resolves a commit
 * once it is visible; `close` still waits for the last flush.
 *
 * `ephemeral` (a datadir in memory that lasts one run) never flushes, and commits on the calling
 * thread: a transaction in memory takes less time than handing it to LMDB's write thread and back
 * (about 1 ms against 2 ms for a one-swap block's commit).
 *
 * A background commit ({@link CommitOptions}) is one batch for LMDB's write thread: the calling
 * thread only encodes the writes (a run of 256 empty blocks, about 4,400 writes: 2-4 ms instead of
 * 16-28 ms written here). Until it is written, reads find its writes in memory.
 */
export class LmdbKV implements KVStore {
  private readonly root: RootDatabase<Uint8Array, Uint8Array>;
  private readonly dbs: Map<Bucket, Database<Uint8Array, Uint8Array>>;

  private readonly durableCommits: boolean;
  private readonly ephemeral: boolean;
  /** The writes of background commits not written yet, by bucket and hex key (null: deleted). */
  private readonly inFlight = new Map<Bucket, Map<string, Uint8Array | null>>();

  constructor(
    path: string,
    options: { readonly durableCommits?: boolean; readonly ephemeral?: boolean } = {},
  ) {
    this.durableCommits = options.durableCommits ?? true;
    this.ephemeral = options.ephemeral ?? false;
    mkdirSync(path, { recursive: true });
    this.root = open<Uint8Array, Uint8Array>({
      path,
      keyEncoding: "binary",
      encoding: "binary",
      compression: false,
      mapSize: 2 ** 36,
      maxDbs: BUCKETS.length + 4,
      noSync: this.ephemeral,
    });
    this.dbs = new Map(
      BUCKETS.map((name) => [
        name,
        this.root.openDB<Uint8Array, Uint8Array>({ name, keyEncoding: "binary", encoding: "binary" }),
      ]),
    );
  }

  get(bucket: Bucket, key: Uint8Array): Uint8Array | undefined {
    if (this.inFlight.size > 0) {
      const pending = this.inFlight.get(bucket)?.get(bytesToHex(key));
      if (pending !== undefined) return pending ?? undefined;
    }
    return this.dbs.get(bucket)!.getBinary(key) ?? undefined;
  }

  *keys(bucket: Bucket, start: Uint8Array, end: Uint8Array): Iterable<Uint8Array> {
    const stored = this.dbs.get(bucket)!.getKeys({ start, end }) as Iterable<Uint8Array>;
    const pending = this.inFlight.get(bucket);
    if (!pending) {
      yield* stored;
      return;
    }
    // Hex keys of equal case sort as their bytes do.
    const [from, to] = [bytesToHex(start), bytesToHex(end)];
    const merged = new Map<string, Uint8Array>();
    for (const key of stored) merged.set(bytesToHex(key), key);
    for (const [hex, value] of pending) {
      if (hex < from || hex >= to) continue;
      if (value === null) merged.delete(hex);
      else merged.set(hex, hexToBytes(hex as `0x${string}`));
    }
    for (const hex of [...merged.keys()].sort()) yield merged.get(hex)!;
  }

  async commit(ops: readonly WriteOp[], options: CommitOptions = {}): Promise<void> {
    if (options.background) {
      await this.commitInBackground(ops);
      return;
    }
    if (this.ephemeral) {
      this.root.transactionSync(() => this.write(ops));
      return;
    }
    await this.root.transaction(() => this.write(ops));
    if (this.durableCommits) await this.root.flushed;
  }

  private async commitInBackground(ops: readonly WriteOp[]): Promise<void> {
    // Checked first: a batch handed over part-way would still be written.
    for (const { bucket } of ops) if (!this.dbs.has(bucket)) throw new Error(`unknown bucket ${bucket}`);
    const held: (readonly [Map<string, Uint8Array | null>, string, Uint8Array | null])[] = [];
    for (const { bucket, key, value } of ops) {
      let pending = this.inFlight.get(bucket);
      if (!pending) {
        pending = new Map();
        this.inFlight.set(bucket, pending);
      }
      const hex = bytesToHex(key);
      pending.set(hex, value);
      held.push([pending, hex, value]);
    }
    try {
      await this.root.batch(() => this.write(ops));
      if (this.durableCommits && !this.ephemeral) await this.root.flushed;
    } finally {
      // Written (or failed): reads go to the store again, but for a later commit's writes in flight.
      for (const [pending, hex, value] of held) if (pending.get(hex) === value) pending.delete(hex);
      for (const [bucket, pending] of this.inFlight) if (pending.size === 0) this.inFlight.delete(bucket);
    }
  }

  private write(ops: readonly WriteOp[]): void {
    for (const op of ops) {
      const db = this.dbs.get(op.bucket)!;
      if (op.value === null) db.remove(op.key);
      else db.put(op.key, op.value);
    }
  }

  /**
   * Makes the next reads see every commit made so far, by any thread: a read snapshot otherwise lasts
   * until this thread's next event-loop turn, and a worker thread may run job after job within one.
   */
  refresh(): void {
    this.root.resetReadTxn();
  }

  async close(): Promise<void> {
    await this.root.flushed;
    await this.root.close();
  }
}
