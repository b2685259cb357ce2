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
});
