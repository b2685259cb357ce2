import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { bytesToHex, KECCAK256_RLP, MapDB, ValueEncoding } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { describe, expect, it } from "vitest";
import { type TrieNodeStore, updateTrie } from "./batch-trie.js";

type Update = readonly [key: Uint8Array, value: Uint8Array];

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const fromHex = (text: string) => Uint8Array.from(Buffer.from(text, "hex"));

class MapStore implements TrieNodeStore {
  readonly nodes = new Map<string, Uint8Array>();
  reads = 0;
  async get(hash: Uint8Array) {
    this.reads++;
    return this.nodes.get(hex(hash));
  }
  async put(hash: Uint8Array, node: Uint8Array) {
    this.nodes.set(hex(hash), node);
  }
}

/** Deterministic pseudo-random source (mulberry32). */
function random(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max: number) => Math.floor(next() * max);
  const bytes = (length: number) => Uint8Array.from({ length }, () => int(256));
  return { int, bytes, value: () => bytes(1 + int(80)) };
}

/**
 * A trie under test next to a reference @ethereumjs/mpt trie given the same operations. Every batch
 * checks the roots match and that a stock trie opened on the store's nodes finds every key.
 *
 * With `rebuildReference`, the reference is rebuilt from the live keys by insertion after each batch
 * instead of receiving the deletes: @ethereumjs/mpt 10.1.3 drops the value of a branch that a delete
 * leaves with a value and a single child, which only variable-length keys can produce.
 */
class Harness {
  readonly store = new MapStore();
  readonly live = new Map<string, Uint8Array>();
  readonly deleted = new Set<string>();
  root: Uint8Array = KECCAK256_RLP;
  private reference = new MerklePatriciaTrie();

  constructor(private readonly rebuildReference = false) {}

  async apply(updates: Update[]): Promise<Uint8Array> {
    this.root = await updateTrie(this.root, updates, this.store, keccak_256);
    for (const [key, value] of updates) {
      if (value.length === 0) {
        if (!this.rebuildReference) await this.reference.del(key);
        this.live.delete(hex(key));
        this.deleted.add(hex(key));
      } else {
        if (!this.rebuildReference) await this.reference.put(key, value);
        this.live.set(hex(key), value);
        this.deleted.delete(hex(key));
      }
    }
    if (this.rebuildReference) {
      this.reference = new MerklePatriciaTrie();
      for (const [key, value] of this.live) await this.reference.put(fromHex(key), value);
    }
    expect(hex(this.root)).toBe(hex(this.reference.root()));
    await this.expectStoreComplete();
    return this.root;
  }

  private async expectStoreComplete() {
    const db = new MapDB<string, Uint8Array>();
    for (const [key, node] of this.store.nodes) await db.put(key, node);
    const trie = new MerklePatriciaTrie({ db, root: this.root, valueEncoding: ValueEncoding.Bytes });
    for (const [key, value] of this.live) expect(hex((await trie.get(fromHex(key)))!)).toBe(hex(value));
    for (const key of this.deleted) expect(await trie.get(fromHex(key))).toBeNull();
  }
}

const del = (key: Uint8Array): Update => [key, new Uint8Array()];

describe("updateTrie", () => {
  it("inserts one key into the empty trie", async () => {
    const trie = new Harness();
    await trie.apply([[fromHex("01"), fromHex("ff")]]);
    await trie.apply([[keccak_256(fromHex("02")), random(1).value()]]);
  });

  it("returns the empty root for an empty batch on the empty trie", async () => {
    const store = new MapStore();
    expect(hex(await updateTrie(KECCAK256_RLP, [], store, keccak_256))).toBe(hex(KECCAK256_RLP));
    expect(store.nodes.size).toBe(0);
  });

  it("builds a trie of many random keys with values of 1..80 bytes in one batch", async () => {
    const rng = random(7);
    const trie = new Harness();
    const updates: Update[] = Array.from({ length: 400 }, (_, i) => [
      rng.bytes(32),
      i % 10 === 0 ? rng.bytes(1) : rng.value(),
    ]);
    await trie.apply(updates);
  });

  it("applies successive batches of inserts, updates and deletes of present and absent keys", async () => {
    const rng = random(42);
    const trie = new Harness();
    for (let batch = 0; batch < 12; batch++) {
      const keys = [...trie.live.keys()].map(fromHex);
      const updates: Update[] = [];
      for (let op = 0; op < 100; op++) {
        const choice = rng.int(10);
        if (keys.length === 0 || choice < 4) updates.push([rng.bytes(32), rng.value()]);
        else if (choice < 6) updates.push([keys[rng.int(keys.length)]!, rng.value()]);
        else if (choice < 9) updates.push(del(keys[rng.int(keys.length)]!));
        else updates.push(del(rng.bytes(32)));
      }
      await trie.apply(updates);
    }
  });

  it("handles keys sharing long prefixes (extensions, splits and collapses)", async () => {
    const rng = random(3);
    const base = rng.bytes(32);
    const variant = (index: number, value: number) => {
      const key = base.slice();
      key[index] = value;
      return key;
    };
    const lastNibble = Array.from({ length: 16 }, (_, n) => variant(31, (base[31]! & 0xf0) | n));
    const middle = [variant(16, 0), variant(16, 0x10), variant(15, 0xaa), variant(0, 0x01)];
    const trie = new Harness();
    await trie.apply([
      [lastNibble[0]!, fromHex("01")],
      [lastNibble[1]!, fromHex("02")],
    ]);
    await trie.apply(lastNibble.slice(2).map((key) => [key, rng.bytes(1 + rng.int(3))] as const));
    await trie.apply(middle.map((key) => [key, rng.value()] as const));
    await trie.apply(lastNibble.slice(1).map(del));
    await trie.apply([del(middle[0]!), del(middle[3]!)]);
    await trie.apply([del(lastNibble[0]!), [middle[1]!, fromHex("7777")]]);
  });

  it("handles variable-length keys where one key is a prefix of another (branch values)", async () => {
    const rng = random(99);
    const trie = new Harness(true);
    const key = () =>
      Uint8Array.from({ length: 1 + rng.int(4) }, () => [0x00, 0x01, 0x10, 0xab][rng.int(4)]!);
    for (let batch = 0; batch < 12; batch++) {
      const updates: Update[] = Array.from({ length: 40 }, () =>
        rng.int(3) === 0 ? del(key()) : [key(), rng.bytes(1 + rng.int(2))],
      );
      await trie.apply(updates);
    }
    await trie.apply([
      [fromHex("00"), fromHex("01")],
      [fromHex("0000"), fromHex("02")],
      [fromHex("000000"), fromHex("03")],
    ]);
    await trie.apply([del(fromHex("0000"))]);
    await trie.apply([del(fromHex("00")), del(fromHex("000000"))]);
  });

  it("keeps the value of a branch that a delete leaves with a value and one child", async () => {
    const trie = new Harness(true);
    await trie.apply(
      ["ab10", "ab1000", "ab100001", "ab1000ab"].map((key) => [fromHex(key), fromHex("01")] as const),
    );
    await trie.apply([del(fromHex("ab1000ab"))]);
  });

  it("returns the empty trie root after deleting every key", async () => {
    const rng = random(5);
    const trie = new Harness();
    const keys = Array.from({ length: 200 }, () => rng.bytes(32));
    await trie.apply(keys.map((key) => [key, rng.value()] as const));
    await trie.apply(keys.slice(0, 100).map(del));
    expect(hex(await trie.apply(keys.slice(100).map(del)))).toBe(hex(KECCAK256_RLP));
  });

  it("lets the last update of a repeated key win", async () => {
    const trie = new Harness();
    const [a, b] = [keccak_256(fromHex("0a")), keccak_256(fromHex("0b"))];
    await trie.apply([
      [a, fromHex("01")],
      [b, fromHex("02")],
      [a, fromHex("03")],
      [b, fromHex("04")],
      del(b),
    ]);
    expect(hex(trie.live.get(hex(a))!)).toBe("03");
    await trie.apply([del(a), [a, fromHex("05")], [b, fromHex("06")]]);
  });

  it("keeps the root and writes nothing when values are unchanged or absent keys are deleted", async () => {
    const rng = random(11);
    const trie = new Harness();
    const updates: Update[] = Array.from({ length: 300 }, () => [rng.bytes(32), rng.value()]);
    const root = await trie.apply(updates);
    const nodeCount = trie.store.nodes.size;
    expect(hex(await trie.apply([...updates.slice(0, 50), del(rng.bytes(32))]))).toBe(hex(root));
    expect(trie.store.nodes.size).toBe(nodeCount);
  });

  it("loads only the nodes on the updated paths and hashes each new node once", async () => {
    const rng = random(13);
    const trie = new Harness();
    await trie.apply(Array.from({ length: 500 }, () => [rng.bytes(32), rng.value()] as const));
    trie.store.reads = 0;
    await updateTrie(trie.root, [[rng.bytes(32), rng.value()]], trie.store, keccak_256);
    expect(trie.store.reads).toBeLessThanOrEqual(4);

    let hashes = 0;
    const countingKeccak = (data: Uint8Array) => {
      hashes++;
      return keccak_256(data);
    };
    const writes: string[] = [];
    const store: TrieNodeStore = {
      get: (hash) => trie.store.get(hash),
      put: async (hash, node) => {
        writes.push(hex(hash));
        await trie.store.put(hash, node);
      },
    };
    const updates = Array.from({ length: 100 }, () => [rng.bytes(32), rng.value()] as const);
    await updateTrie(trie.root, updates, store, countingKeccak);
    expect(new Set(writes).size).toBe(writes.length);
    // One hash per written node, plus the empty-trie root the root is compared with.
    expect(hashes).toBe(writes.length + 1);
  });

  it("throws with the hash of a node missing from the store", async () => {
    const missing = keccak_256(fromHex("1234"));
    await expect(
      updateTrie(missing, [[fromHex("01"), fromHex("02")]], new MapStore(), keccak_256),
    ).rejects.toThrow(bytesToHex(missing));
  });
});
