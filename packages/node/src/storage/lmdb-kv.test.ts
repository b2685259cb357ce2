import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LmdbKV } from "./lmdb-kv.js";

const dir = mkdtempSync(join(tmpdir(), "strata-lmdb-kv-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The bytes of `meta`/`key` in the store at `path`, opened anew (what a restarted node would read). */
async function storedAfterReopening(path: string, key: Uint8Array): Promise<number[] | undefined> {
  const reopened = new LmdbKV(path);
  try {
    const value = reopened.get("meta", key);
    return value && [...value];
  } finally {
    await reopened.close();
  }
}

describe("LmdbKV.commit", () => {
  it("resolves only after LMDB has flushed the transaction to disk, not when it became visible", async () => {
    const kv = new LmdbKV(join(dir, "chaindata"));
    // lmdb-js commits with overlappingSync: `flushed` settles once the fsync that follows a commit is done.
    const root = (kv as unknown as { root: { flushed: PromiseLike<unknown> } }).root;
    try {
      for (let i = 0; i < 5; i++) {
        let flushed = false;
        const key = Uint8Array.of(i);
        const committed = kv.commit([{ bucket: "meta", key, value: Uint8Array.of(1, 2, 3) }]);
        void Promise.resolve(root.flushed).then(() => {
          flushed = true;
        });
        await committed;
        expect(flushed).toBe(true);
        expect([...kv.get("meta", key)!]).toEqual([1, 2, 3]);
      }
    } finally {
      await kv.close();
    }
  });

  it("without durable commits (chain import) still flushes everything by close", async () => {
    const path = join(dir, "import");
    const kv = new LmdbKV(path, { durableCommits: false });
    for (let i = 0; i < 20; i++)
      await kv.commit([{ bucket: "meta", key: Uint8Array.of(i), value: Uint8Array.of(i) }]);
    await kv.close();
    expect(await storedAfterReopening(path, Uint8Array.of(19))).toEqual([19]);
  });

  it("ephemeral: commits on the calling thread, visible as soon as commit returns, and atomic", async () => {
    const path = join(dir, "ephemeral");
    const kv = new LmdbKV(path, { ephemeral: true });
    try {
      // Not awaited: the transaction has already been made when commit returns its promise.
      const committed = kv.commit([
        { bucket: "meta", key: Uint8Array.of(1), value: Uint8Array.of(7) },
        { bucket: "blocks", key: Uint8Array.of(2), value: Uint8Array.of(8) },
      ]);
      expect([...kv.get("meta", Uint8Array.of(1))!]).toEqual([7]);
      expect([...kv.get("blocks", Uint8Array.of(2))!]).toEqual([8]);
      await committed;
      // A commit that fails part-way leaves nothing of itself.
      const failing = [
        { bucket: "meta", key: Uint8Array.of(3), value: Uint8Array.of(9) },
        { bucket: "nowhere", key: Uint8Array.of(4), value: Uint8Array.of(9) },
      ] as unknown as Parameters<LmdbKV["commit"]>[0];
      await expect(kv.commit(failing)).rejects.toThrow();
      expect(kv.get("meta", Uint8Array.of(3))).toBeUndefined();
    } finally {
      await kv.close();
    }
    expect(await storedAfterReopening(path, Uint8Array.of(1))).toEqual([7]);
  });

  it("in the background: reads see the writes at once, keys merge them in byte order, and the store has them once written", async () => {
    for (const options of [{ ephemeral: true }, {}]) {
      const path = join(dir, `background-${options.ephemeral ? "ephemeral" : "durable"}`);
      const kv = new LmdbKV(path, options);
      const key = (i: number) => Uint8Array.of(i >> 8, i & 0xff);
      try {
        await kv.commit(
          [0, 1, 2, 3].map((i) => ({ bucket: "logIndex", key: key(i * 1000), value: Uint8Array.of(1) })),
        );
        const ops = Array.from({ length: 2_000 }, (_, i) => ({
          bucket: "logIndex" as const,
          key: key(i * 2 + 1),
          value: Uint8Array.of(i & 0xff, 2),
        }));
        const removed = { bucket: "logIndex" as const, key: key(2000), value: null };
        const written = kv.commit([...ops, removed], { background: true });
        // LMDB's write thread takes milliseconds for these: what reads find now comes from memory.
        const raw = (kv as unknown as { dbs: Map<string, { getBinary(k: Uint8Array): unknown }> }).dbs;
        expect(raw.get("logIndex")!.getBinary(key(3))).toBeUndefined();
        expect([...kv.get("logIndex", key(3))!]).toEqual([1, 2]);
        expect(kv.get("logIndex", key(2000))).toBeUndefined();
        const listed = [...kv.keys("logIndex", key(0), key(2004))].map((k) => (k[0]! << 8) | k[1]!);
        const expected = [0, 1000, 3000, ...ops.map((_, i) => i * 2 + 1)]
          .filter((k) => k < 2004)
          .sort((a, b) => a - b);
        expect(listed).toEqual(expected);
        await written;
        expect(raw.get("logIndex")!.getBinary(key(3))).toBeDefined();
        expect((kv as unknown as { inFlight: Map<string, unknown> }).inFlight.size).toBe(0);
        expect([...kv.keys("logIndex", key(0), key(2004))].length).toBe(expected.length);
        // A background commit naming an unknown bucket fails whole: nothing of it is written.
        const failing = [
          { bucket: "meta", key: Uint8Array.of(5), value: Uint8Array.of(9) },
          { bucket: "nowhere", key: Uint8Array.of(6), value: Uint8Array.of(9) },
        ] as unknown as Parameters<LmdbKV["commit"]>[0];
        await expect(kv.commit(failing, { background: true })).rejects.toThrow("unknown bucket nowhere");
        await kv.commit([{ bucket: "meta", key: Uint8Array.of(7), value: Uint8Array.of(1) }], {
          background: true,
        });
        expect(kv.get("meta", Uint8Array.of(5))).toBeUndefined();
      } finally {
        await kv.close();
      }
      if (!options.ephemeral) expect(await storedAfterReopening(path, Uint8Array.of(7))).toEqual([1]);
    }
  });
});
