import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { BUCKETS, type Bucket, type KVStore, type WriteOp } from "./kv.js";

/** An in-memory {@link KVStore} for tests and throwaway chains. */
export class MemoryKV implements KVStore {
  private readonly buckets = new Map<Bucket, Map<string, Uint8Array>>(BUCKETS.map((b) => [b, new Map()]));

  get(bucket: Bucket, key: Uint8Array): Uint8Array | undefined {
    return this.buckets.get(bucket)!.get(bytesToHex(key));
  }

  *keys(bucket: Bucket, start: Uint8Array, end: Uint8Array): Iterable<Uint8Array> {
    const from = bytesToHex(start);
    const to = bytesToHex(end);
    const inRange = [...this.buckets.get(bucket)!.keys()].filter((k) => k >= from && k < to).sort();
    for (const key of inRange) yield hexToBytes(key as `0x${string}`);
  }

  async commit(ops: readonly WriteOp[]): Promise<void> {
    for (const op of ops) {
      const bucket = this.buckets.get(op.bucket)!;
      if (op.value === null) bucket.delete(bytesToHex(op.key));
      else bucket.set(bytesToHex(op.key), op.value);
    }
  }

  async close(): Promise<void> {}
}
