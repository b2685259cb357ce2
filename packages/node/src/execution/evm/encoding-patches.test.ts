import { RLP } from "@ethereumjs/rlp";
import { bytesToHex, bytesToUnprefixedHex } from "@ethereumjs/util";
import { bytesToHex as stringLoopHex } from "@noble/hashes/utils.js";
import { fromRlp, toRlp } from "viem";
import { describe, expect, it } from "vitest";

type Tree = Uint8Array | Tree[];

/** A fixed pseudo-random sequence, so that a failure names the same input on every run. */
function randomSource(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return (state >>> 8) % below;
  };
}

/** Byte strings of the lengths around RLP's boundaries (1 byte, 55/56, 255/256, 65,536), nested in lists. */
function randomTree(next: (below: number) => number, depth: number): Tree {
  if (depth > 2 || next(2) === 0) {
    const length = [0, 1, 1, 2, 20, 32, 55, 56, 57, 255, 256, 1_000, 65_536][next(depth === 0 ? 13 : 12)]!;
    return Uint8Array.from({ length }, () => next(256));
  }
  // Up to 60 items at the top: list payloads on both sides of 55 bytes and of 256.
  return Array.from({ length: next(depth === 0 ? 60 : 12) }, () => randomTree(next, depth + 1));
}

function sameTree(a: Tree, b: Tree): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameTree(x, b[i]!))
    );
  }
  return Buffer.from(a).equals(Buffer.from(b));
}

describe("patched RLP", () => {
  it("encodes and decodes as an independent implementation does (viem), lengths on every boundary", () => {
    const next = randomSource(0x5eed);
    for (let i = 0; i < 300; i++) {
      const tree = randomTree(next, 0);
      const encoded = RLP.encode(tree);
      expect(bytesToHex(encoded), `tree ${i}`).toBe(toRlp(tree as never, "hex"));
      expect(sameTree(RLP.decode(encoded) as Tree, fromRlp(encoded, "bytes") as Tree), `tree ${i}`).toBe(
        true,
      );
    }
    // Values that are not bytes are converted as before: numbers, bigints, hex and text strings, null.
    expect(bytesToHex(RLP.encode([0, 127, 128, 1024n, "0x0400", "dog", null]))).toBe(
      "0xcf807f818082040082040083646f6780",
    );
  });

  it("decodes byte strings as copies of the input", () => {
    const encoded = RLP.encode([Uint8Array.of(1, 2, 3), [Uint8Array.of(4, 5)]]);
    const decoded = RLP.decode(encoded) as [Uint8Array, [Uint8Array]];
    encoded.fill(0xff);
    expect([...decoded[0]]).toEqual([1, 2, 3]);
    expect([...decoded[1][0]]).toEqual([4, 5]);
    expect(decoded[0].buffer).not.toBe(decoded[1][0].buffer);
  });

  it("refuses malformed input with the library's messages, and streams what follows an item", () => {
    const refusals: [string, string][] = [
      ["0x8100", "invalid prefix, single byte < 0x80 are not prefixed"],
      ["0xb801", "not enough bytes for string length"],
      [`0xb800${"00".repeat(60)}`, "extra zeros"],
      [`0xb837${"00".repeat(55)}`, "expected string length to be greater than 55"],
      ["0x83aabb", "end slice of Uint8Array out-of-bounds"],
      ["0xc3aabb", "end slice of Uint8Array out-of-bounds"],
      // A list whose item runs past the list's end, though not past the input's.
      ["0xc283aabbcc", "end slice of Uint8Array out-of-bounds"],
      [`0xf837${"00".repeat(55)}`, "encoded list too short"],
      ["0xf90100aa", "total length is larger than the data"],
      ["0x0102", "remainder must be zero"],
    ];
    for (const [hex, message] of refusals) {
      expect(() => RLP.decode(Buffer.from(hex.slice(2), "hex")), hex).toThrow(message);
    }
    const stream = RLP.decode(Buffer.from("820102c0", "hex"), true) as unknown as {
      data: Uint8Array;
      remainder: Uint8Array;
    };
    expect([...stream.data]).toEqual([1, 2]);
    expect([...stream.remainder]).toEqual([0xc0]);
  });
});

describe("patched hex encoding", () => {
  it("writes any byte view as the string loop does, natively", () => {
    expect(bytesToUnprefixedHex).not.toBe(stringLoopHex);
    const next = randomSource(0xbeef);
    for (let length = 0; length <= 80; length++) {
      const backing = Uint8Array.from({ length: length + 7 }, () => next(256));
      const view = backing.subarray(3, 3 + length);
      expect(bytesToUnprefixedHex(view), `${length} bytes`).toBe(stringLoopHex(view));
      expect(bytesToHex(view)).toBe(`0x${stringLoopHex(view)}`);
    }
    expect(bytesToUnprefixedHex(Buffer.from([0xab, 0x01]))).toBe("ab01");
    expect(() => bytesToUnprefixedHex("ab" as never)).toThrow("expected Uint8Array");
  });
});
