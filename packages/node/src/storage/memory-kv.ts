import { bytesToHex } from "@ethereumjs/util";
import { BUCKETS, type Bucket, type KVStore, type WriteOp } from "./kv.js";

/** An in-memory {@link KVStore} for tests and throwaway chains. */
export class MemoryKV implements KVStore {
  private readonly buckets = new Map<Bucket, Map<string, Uint8Array>>(BUCKETS.map((b) => [b, new Map()]));

  get(bucket: Bucket, key: Uint8Array): Uint8Array | undefined {
    return this.buckets.get(bucket)!.get(bytesToHex(key));
  }

  async commit(ops: readonly WriteOp[]): Promise<void> {
    for (const op of ops) this.buckets.get(op.bucket)!.set(bytesToHex(op.key), op.value);
  }

  async close(): Promise<void> {}
}
