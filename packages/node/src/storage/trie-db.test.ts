import { CheckpointDB } from "@ethereumjs/mpt";
import { ValueEncoding } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import type { Bucket } from "./kv.js";
import { MemoryKV } from "./memory-kv.js";
import { TrieDatabase } from "./trie-db.js";

/** A memory store that counts reads of trie nodes. */
class CountingKV extends MemoryKV {
  trieReads = 0;

  override get(bucket: Bucket, key: Uint8Array): Uint8Array | undefined {
    if (bucket === "trie") this.trieReads++;
    return super.get(bucket, key);
  }
}

describe("TrieDatabase", () => {
  it("holds writes until drained, then serves the drained nodes without reading the store", async () => {
    const kv = new CountingKV();
    const db = new TrieDatabase(kv);
    await db.put("aa01", Uint8Array.of(1));
    expect(await db.get("aa01")).toEqual(Uint8Array.of(1));
    const ops = db.drain();
    expect(ops).toEqual([{ bucket: "trie", key: Uint8Array.of(0xaa, 0x01), value: Uint8Array.of(1) }]);
    expect(db.drain()).toEqual([]);
    await kv.commit(ops);
    expect(await db.get("aa01")).toEqual(Uint8Array.of(1));
    expect(kv.trieReads).toBe(0);
  });

  it("reads a stored node once, then answers it from the node cache shared by every trie", async () => {
    const kv = new CountingKV();
    await kv.commit([{ bucket: "trie", key: Uint8Array.of(0xbb), value: Uint8Array.of(2) }]);
    const db = new TrieDatabase(kv);
    for (let i = 0; i < 3; i++) expect(await db.get("bb")).toEqual(Uint8Array.of(2));
    expect(kv.trieReads).toBe(1);
    expect(await db.get("cc")).toBeUndefined();
    expect(await db.get("cc")).toBeUndefined();
    // Missing nodes are not cached: they may be written later.
    expect(kv.trieReads).toBe(3);
  });
});

describe("TrieDatabase under a trie's checkpoints", () => {
  it("takes what the outermost commit writes, by the keys the trie wrote, and nothing a reverted checkpoint wrote", async () => {
    const kv = new CountingKV();
    const db = new TrieDatabase(kv);
    const checkpoints = new CheckpointDB({ db, valueEncoding: ValueEncoding.Bytes });
    const root = new Uint8Array(32);
    checkpoints.checkpoint(root);
    await checkpoints.put(Uint8Array.of(0x0a, 0x01), Uint8Array.of(1));
    checkpoints.checkpoint(root);
    await checkpoints.put(Uint8Array.of(0x0b), Uint8Array.of(2));
    await checkpoints.commit();
    checkpoints.checkpoint(root);
    await checkpoints.put(Uint8Array.of(0x0c), Uint8Array.of(3));
    await checkpoints.revert();
    expect(db.drain()).toEqual([]);
    await checkpoints.commit();
    expect(db.drain()).toEqual([
      { bucket: "trie", key: Uint8Array.of(0x0a, 0x01), value: Uint8Array.of(1) },
      { bucket: "trie", key: Uint8Array.of(0x0b), value: Uint8Array.of(2) },
    ]);
    expect(checkpoints.stats().db.writes).toBe(2);
    expect(kv.trieReads).toBe(0);
  });
});

describe("TrieDatabase node cache", () => {
  it("holds at most its bound of nodes when more are written and read", async () => {
    const kv = new MemoryKV();
    const db = new TrieDatabase(kv);
    const [structure] = db.boundedStructures();
    expect(structure).toMatchObject({ name: "trie_nodes", bound: 100_000 });
    for (let i = 0; i < structure!.bound + 20_000; i++)
      await db.put(i.toString(16).padStart(8, "0"), Uint8Array.of(i & 0xff));
    await kv.commit(db.drain());
    expect(structure!.size()).toBe(structure!.bound);
    for (let i = 0; i < 20_000; i++) await db.get(i.toString(16).padStart(8, "0"));
    expect(structure!.size()).toBe(structure!.bound);
  }, 60_000);
});
