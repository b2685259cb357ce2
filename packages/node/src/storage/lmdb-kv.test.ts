import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LmdbKV } from "./lmdb-kv.js";

const dir = mkdtempSync(join(tmpdir(), "strata-lmdb-kv-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
    const reopened = new LmdbKV(path);
    try {
      expect([...reopened.get("meta", Uint8Array.of(19))!]).toEqual([19]);
    } finally {
      await reopened.close();
    }
  });
});
