import { keccak_256 } from "@noble/hashes/sha3.js";
import { describe, expect, it } from "vitest";
import { keccak256 } from "./keccak.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

describe("keccak256", () => {
  it("hashes like the reference implementation on both sides of the native threshold", () => {
    for (const size of [0, 1, 55, 56, 135, 136, 137, 272, 1023, 1024, 1025, 70_000]) {
      const data = Uint8Array.from({ length: size }, (_, i) => (i * 131 + size) & 0xff);
      expect(hex(keccak256(data)), `size ${size}`).toBe(hex(keccak_256(data)));
    }
  });

  it("hashes views into larger buffers by their own bytes", () => {
    const backing = Uint8Array.from({ length: 300 }, (_, i) => i & 0xff);
    const view = backing.subarray(17, 150);
    expect(hex(keccak256(view))).toBe(hex(keccak_256(view.slice())));
    expect(hex(keccak256(Buffer.from(view)))).toBe(hex(keccak_256(view.slice())));
  });

  it("returns a new array each time, which later hashes leave unchanged", () => {
    const first = keccak256(new Uint8Array([1]));
    const copy = first.slice();
    const second = keccak256(new Uint8Array([2]));
    expect(second).not.toBe(first);
    expect(first).toEqual(copy);
    expect(first.length).toBe(32);
    expect(first.buffer).not.toBe(second.buffer);
  });
});
