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

  it("settles at once what the thread has answered, without a turn of the event loop", async () => {
    const digests = keys.map((privateKey, i) => ({ hash: digest(10 + i), privateKey }));
    let signatures: Uint8Array[] | undefined;
    const running = thread.sign(digests).then((s) => {
      signatures = s;
    });
    // The answer (three signatures, well under a millisecond) arrives while this thread is blocked:
    // no event can deliver it.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    expect(signatures).toBeUndefined();
    const signedHere = thread.signedHere;
    thread.settleNow(() => {
      throw new Error("signed here although the thread had answered");
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(signatures).toEqual(digests.map(({ hash, privateKey }) => signSeal(hash, privateKey)));
    expect(thread.signedHere).toBe(signedHere);
    await running;
  });

  it("signs here a batch the thread has not answered yet, as the thread would, and drops its late answer", async () => {
    // Hundreds of signatures keep the thread busy for milliseconds: it cannot have answered yet.
    const digests = Array.from({ length: 400 }, (_, i) => ({
      hash: digest(100 + i),
      privateKey: keys[i % 3]!,
    }));
    const signedHere = thread.signedHere;
    const running = thread.sign(digests);
    thread.settleNow(signSeal);
    expect(thread.signedHere).toBe(signedHere + 1);
    expect(await running).toEqual(digests.map(({ hash, privateKey }) => signSeal(hash, privateKey)));
    const invalid = thread.sign([{ hash: digest(7), privateKey: new Uint8Array(32) }]);
    thread.settleNow(signSeal);
    await expect(invalid).rejects.toThrow(/signing failed/);
    // The thread's late answers change nothing; it goes on signing.
    expect(await thread.sign([{ hash: digest(8), privateKey: keys[2]! }])).toEqual([
      signSeal(digest(8), keys[2]!),
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
