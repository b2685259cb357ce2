import { describe, expect, it } from "vitest";
import type { StoredReceipt } from "../storage/records.js";
import { BlockLogsCache } from "./block-logs-cache.js";

const bytes = (fill: number, length: number) => new Uint8Array(length).fill(fill);

function receiptsWith(logCount: number): StoredReceipt[] {
  return [
    {
      type: 2,
      status: 1,
      cumulativeGasUsed: 0n,
      gasUsed: 0n,
      logs: Array.from({ length: logCount }, (_, i) => ({
        address: bytes(i, 20),
        topics: [],
        data: new Uint8Array(),
      })),
      sender: bytes(1, 20),
      contractAddress: undefined,
      txHash: bytes(2, 32),
    },
  ];
}

const ref = (n: number) => ({ hash: bytes(n, 32), number: BigInt(n), timestamp: 0n });
const refOf = (n: number) => ({
  hash: Buffer.from(n.toString(16).padStart(64, "0"), "hex"),
  number: BigInt(n),
  timestamp: 0n,
});

function size(cache: BlockLogsCache, name: string): number {
  return cache
    .boundedStructures()
    .find((s) => s.name === name)!
    .size();
}

describe("BlockLogsCache", () => {
  it("reads receipts once per block and hands back the same serialized logs", () => {
    const cache = new BlockLogsCache();
    let reads = 0;
    const load = () => {
      reads++;
      return receiptsWith(3);
    };
    const first = cache.get(ref(1), load);
    expect(first?.json).toHaveLength(3);
    expect(JSON.parse(first!.json[2]!)).toMatchObject({ logIndex: "0x2", blockNumber: "0x1" });
    expect(cache.get(ref(1), load)).toBe(first);
    expect(reads).toBe(1);
    expect(cache.get(ref(2), () => undefined)).toBeUndefined();
  });

  it("evicts the oldest blocks past its size bound", () => {
    const probe = new BlockLogsCache();
    probe.get(ref(1), () => receiptsWith(2));
    const oneBlock = size(probe, "log_json");
    const cache = new BlockLogsCache({ maxBytes: oneBlock * 2, maxBlocks: 100 });
    let reads = 0;
    const load = () => {
      reads++;
      return receiptsWith(2);
    };
    cache.get(ref(1), load);
    cache.get(ref(2), load);
    cache.get(ref(3), load);
    expect(reads).toBe(3);
    cache.get(ref(3), load);
    cache.get(ref(2), load);
    expect(reads).toBe(3);
    cache.get(ref(1), load);
    expect(reads).toBe(4);
  });

  it("stays at its block bound when filled with blocks that hold no logs", () => {
    const cache = new BlockLogsCache({ maxBytes: 64 * 1024 * 1024, maxBlocks: 50 });
    for (let n = 0; n < 500; n++) cache.get(refOf(n), () => receiptsWith(0));
    expect(size(cache, "log_json_blocks")).toBe(50);
    expect(size(cache, "log_json")).toBeGreaterThan(0);
    expect(size(cache, "log_json")).toBeLessThanOrEqual(64 * 1024 * 1024);
  });

  it("stays under its byte bound when filled past it", () => {
    const cache = new BlockLogsCache({ maxBytes: 20_000, maxBlocks: 10_000 });
    for (let n = 0; n < 500; n++) cache.get(refOf(n), () => receiptsWith(5));
    const bytesHeld = size(cache, "log_json");
    expect(bytesHeld).toBeLessThanOrEqual(20_000);
    expect(bytesHeld).toBeGreaterThan(20_000 - 5_000);
    expect(size(cache, "log_json_blocks")).toBeLessThan(500);
  });
});
