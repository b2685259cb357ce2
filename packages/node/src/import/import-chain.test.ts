import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RLP } from "@ethereumjs/rlp";
import { bytesToHex, concatBytes } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openChain } from "../chain/open-chain.js";
import { buildTinyChain, type TinyChain } from "../conformance/harness/tiny-chain.js";
import { ImportError } from "./errors.js";
import { importChainFile } from "./import-chain.js";
import { initDatadir } from "./init-datadir.js";

type Nested = Uint8Array | Nested[];

/** Re-encodes `block` with header field `index` replaced (3: state root, 9: gas limit, 10: gas used, 11: timestamp, 12: extra data, 15: base fee). */
function withHeaderField(block: Uint8Array, index: number, value: Uint8Array): Uint8Array {
  const fields = RLP.decode(block) as Nested[];
  const header = [...(fields[0] as Uint8Array[])];
  header[index] = value;
  return RLP.encode([header, ...fields.slice(1)]);
}

function hashOf(block: Uint8Array): Uint8Array {
  const header = (RLP.decode(block) as Nested[])[0] as Uint8Array[];
  return keccak_256(RLP.encode(header));
}

describe("strata import", () => {
  let tiny: TinyChain;
  let root: string;
  let genesisFile: string;
  let sourceHead: string;
  let run = 0;

  beforeAll(async () => {
    tiny = await buildTinyChain();
    sourceHead = bytesToHex(tiny.node.chain.head.hash());
    await tiny.stop();
    root = mkdtempSync(join(tmpdir(), "strata-import-"));
    genesisFile = join(root, "genesis.json");
    writeFileSync(genesisFile, JSON.stringify(tiny.genesis));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  async function freshDatadir(): Promise<string> {
    const datadir = join(root, `data-${run++}`);
    await initDatadir(genesisFile, datadir);
    return datadir;
  }

  async function headOf(datadir: string): Promise<{ number: bigint; hash: string }> {
    const opened = await openChain(tiny.network, datadir);
    try {
      return { number: opened.chain.head.header.number, hash: bytesToHex(opened.chain.head.hash()) };
    } finally {
      await opened.close();
    }
  }

  it("executes every block across a timestamp fork and reproduces the source chain exactly", async () => {
    const datadir = await freshDatadir();
    const seen: bigint[] = [];
    const summary = await importChainFile(tiny.network, datadir, tiny.chainFile, (p) => seen.push(p.number));
    expect(summary).toEqual({ imported: 3, known: 0, head: 3n, headHash: sourceHead });
    expect(seen).toEqual([1n, 2n, 3n]);
    const opened = await openChain(tiny.network, datadir);
    try {
      // Block 1 runs under Cancun (no requests hash), blocks 2 and 3 under Prague.
      expect(opened.chain.blockByNumber(1n)!.header.requestsHash).toBeUndefined();
      expect(opened.chain.blockByNumber(2n)!.header.requestsHash).toBeDefined();
      expect(opened.chain.store.receipts(opened.chain.head.hash())![0]!.contractAddress).toBeDefined();
    } finally {
      await opened.close();
    }
  });

  it("skips blocks it already holds, so importing the same file twice is harmless", async () => {
    const datadir = await freshDatadir();
    await importChainFile(tiny.network, datadir, tiny.chainFile);
    const again = await importChainFile(tiny.network, datadir, tiny.chainFile);
    expect(again).toMatchObject({ imported: 0, known: 3, head: 3n, headHash: sourceHead });
  });

  it("rejects a block whose state root differs from the executed one, writing nothing of it", async () => {
    const datadir = await freshDatadir();
    const bad = withHeaderField(tiny.blocks[0]!, 3, new Uint8Array(32).fill(7));
    const error = await importChainFile(tiny.network, datadir, bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
    expect((error as ImportError).blockNumber).toBe(1n);
    expect((error as ImportError).message).toMatch(
      /^block 1: invalid block stateRoot, got: 0x[0-9a-f]{64}, want: 0x0707/,
    );
    expect(await headOf(datadir)).toMatchObject({ number: 0n });
    const opened = await openChain(tiny.network, datadir);
    try {
      expect(opened.chain.store.canonicalHash(1n)).toBeUndefined();
      expect(opened.chain.store.blockByHash(hashOf(bad))).toBeUndefined();
    } finally {
      await opened.close();
    }
    // The good chain still imports on top of the untouched genesis.
    expect((await importChainFile(tiny.network, datadir, tiny.chainFile)).headHash).toBe(sourceHead);
  });

  it("keeps the blocks before a bad one and names the bad block and the rule it breaks", async () => {
    const datadir = await freshDatadir();
    const lateBaseFee = withHeaderField(tiny.blocks[1]!, 15, new Uint8Array([1]));
    const file = concatBytes(tiny.blocks[0]!, lateBaseFee, tiny.blocks[2]!);
    await expect(importChainFile(tiny.network, datadir, file)).rejects.toThrow(
      /^block 2: invalid base fee: have 1, want \d+$/,
    );
    expect(await headOf(datadir)).toMatchObject({ number: 1n });
  });

  it.each([
    ["timestamp", 11, Uint8Array.of(0x03, 0xe8), /^block 1: timestamp 1000 not after parent timestamp 1000$/],
    [
      "extra data",
      12,
      new Uint8Array(33),
      /^block 1: Invalid PoS block: , extraData: 0x0+ \(cannot exceed 32 bytes length, received 33 bytes\) \(block at byte 0\)$/,
    ],
    [
      "gas limit",
      9,
      Uint8Array.of(0x03, 0xc9, 0xc3, 0x80),
      /^block 1: invalid gas limit: gas limit increased too much/,
    ],
    ["gas used", 10, Uint8Array.of(0x01), /^block 1: invalid gasUsed$/],
  ])("checks the %s of a header", async (_field, index, value, message) => {
    const datadir = await freshDatadir();
    const bad = withHeaderField(tiny.blocks[0]!, index, value);
    await expect(importChainFile(tiny.network, datadir, bad)).rejects.toThrow(message);
    expect(await headOf(datadir)).toMatchObject({ number: 0n });
  });

  it("refuses a block whose parent is not the head", async () => {
    const datadir = await freshDatadir();
    const file = concatBytes(tiny.blocks[1]!, tiny.blocks[2]!);
    await expect(importChainFile(tiny.network, datadir, file)).rejects.toThrow(
      /^block 2: unknown parent 0x[0-9a-f]{64} \(the head is block 0\)$/,
    );
    expect(await headOf(datadir)).toMatchObject({ number: 0n });
  });

  it("reports bad RLP with its byte offset, after importing the blocks before it", async () => {
    const datadir = await freshDatadir();
    const truncated = concatBytes(tiny.blocks[0]!, tiny.blocks[1]!.subarray(0, 40));
    await expect(importChainFile(tiny.network, datadir, truncated)).rejects.toThrow(
      new RegExp(`^invalid RLP at byte ${tiny.blocks[0]!.length}: `),
    );
    expect(await headOf(datadir)).toMatchObject({ number: 1n });
    await expect(importChainFile(tiny.network, datadir, new Uint8Array([0x82, 0x01, 0x02]))).rejects.toThrow(
      "invalid RLP at byte 0: a block must be an RLP list",
    );
    await expect(importChainFile(tiny.network, datadir, RLP.encode([[1], [2]]))).rejects.toThrow(
      /^undecodable block at byte 0: /,
    );
  });
});
