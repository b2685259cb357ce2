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
    const oneBlock = new BlockLogsCache().get(ref(1), () => receiptsWith(2))!.json.join("").length;
    const cache = new BlockLogsCache(oneBlock * 2);
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
});
