import { describe, expect, it } from "vitest";
import type { StoredReceipt } from "../storage/records.js";
import { formatLogs, formatLogsJson } from "./log-format.js";

const bytes = (fill: number, length: number) => new Uint8Array(length).fill(fill);

const receipts: StoredReceipt[] = [0, 1].map((i) => ({
  type: 2,
  status: 1,
  cumulativeGasUsed: 0n,
  gasUsed: 0n,
  logs: [
    {
      address: bytes(0x10 + i, 20),
      topics: [bytes(0xaa, 32), bytes(0xbb + i, 32)],
      data: Uint8Array.of(1, 2, i),
    },
    { address: bytes(0x20, 20), topics: [], data: new Uint8Array() },
  ],
  sender: bytes(0x01, 20),
  contractAddress: undefined,
  txHash: bytes(0x80 + i, 32),
}));
const ref = { hash: bytes(0x44, 32), number: 300n, timestamp: 1_700_000_000n };

describe("log formatting", () => {
  it("writes the same JSON text as serializing the log objects", () => {
    const keep = (_: unknown, txIndex: number) => txIndex === 1;
    for (const filter of [undefined, keep]) {
      const objects = formatLogs(ref, receipts, filter);
      const texts = formatLogsJson(ref, receipts, filter);
      expect(texts).toEqual(objects.map((o) => JSON.stringify(o)));
    }
  });

  it("numbers logs across the block and names their transaction", () => {
    const logs = formatLogs(ref, receipts, (log) => log.topics.length === 0);
    expect(logs.map((l) => [l.logIndex, l.transactionIndex, l.transactionHash.slice(0, 4)])).toEqual([
      ["0x1", "0x0", "0x80"],
      ["0x3", "0x1", "0x81"],
    ]);
    expect(logs[0]).toMatchObject({ blockNumber: "0x12c", blockTimestamp: "0x6553f100", removed: false });
  });
});
