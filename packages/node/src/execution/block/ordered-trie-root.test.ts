import { createMPT } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { describe, expect, it } from "vitest";
import { orderedTrieRoot } from "./ordered-trie-root.js";

async function reference(values: Uint8Array[]): Promise<string> {
  const trie = await createMPT();
  for (let i = 0; i < values.length; i++) await trie.put(RLP.encode(i), values[i]!);
  return Buffer.from(trie.root()).toString("hex");
}

function pseudoRandomValues(count: number, seed: number): Uint8Array[] {
  let x = seed;
  const next = () => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x;
  };
  return Array.from({ length: count }, () =>
    Uint8Array.from({ length: 1 + (next() % 120) }, () => next() & 0xff),
  );
}

describe("orderedTrieRoot", () => {
  it.each([0, 1, 2, 3, 16, 17, 127, 128, 129, 255, 256, 300, 1500])(
    "matches an MPT built by insertion for %i entries",
    async (count) => {
      const values = pseudoRandomValues(count, count + 7);
      expect(Buffer.from(orderedTrieRoot(values, keccak_256)).toString("hex")).toBe(await reference(values));
    },
  );

  it("handles tiny values that get inlined in their parent", async () => {
    const values = Array.from({ length: 40 }, (_, i) => Uint8Array.of(i));
    expect(Buffer.from(orderedTrieRoot(values, keccak_256)).toString("hex")).toBe(await reference(values));
  });
});
