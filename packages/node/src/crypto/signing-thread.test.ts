import { afterAll, describe, expect, it } from "vitest";
import { signSeal } from "../consensus/seal.js";
import { keccak256 } from "./keccak.js";
import { SigningThread } from "./signing-thread.js";

const thread = SigningThread.start()!;
afterAll(() => thread.close());

const keys = [1, 2, 3].map((b) => new Uint8Array(32).fill(b));
const digest = (i: number) => keccak256(Uint8Array.of(i));

describe("signing thread", () => {
  it("signs a batch on its thread exactly as libsecp256k1 does in-thread, in order", async () => {
    const digests = keys.map((privateKey, i) => ({ hash: digest(i), privateKey }));
    const before = thread.batches;
    const signatures = await thread.sign(digests);
    expect(thread.batches).toBe(before + 1);
    expect(signatures).toEqual(digests.map(({ hash, privateKey }) => signSeal(hash, privateKey)));
    expect(await thread.sign([])).toEqual([]);
  });

  it("refuses a batch with an invalid key and goes on signing", async () => {
    const zeroKey = new Uint8Array(32);
    await expect(thread.sign([{ hash: digest(1), privateKey: zeroKey }])).rejects.toThrow(/signing failed/);
    expect(() => thread.sign([{ hash: digest(1), privateKey: new Uint8Array(31) }])).toThrow(/32 bytes/);
    expect(thread.available).toBe(true);
    expect(await thread.sign([{ hash: digest(2), privateKey: keys[0]! }])).toEqual([
      signSeal(digest(2), keys[0]!),
    ]);
  });

  it("fails what is in flight when closed, and takes nothing after", async () => {
    const other = SigningThread.start()!;
    const running = other.sign([{ hash: digest(3), privateKey: keys[1]! }]);
    other.close();
    await expect(running).rejects.toThrow(/closed/);
    expect(other.available).toBe(false);
    await expect(other.sign([{ hash: digest(3), privateKey: keys[1]! }])).rejects.toThrow(/closed/);
  });
});
