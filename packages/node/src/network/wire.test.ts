import { RLP } from "@ethereumjs/rlp";
import { describe, expect, it } from "vitest";
import {
  decodeTransactionBatch,
  encodeTransactionBatch,
  MAX_GOSSIP_TRANSACTIONS,
  WireError,
} from "./wire.js";

describe("transaction batches (the transactions topic's payload)", () => {
  const raw = (fill: number, length = 120) => new Uint8Array(length).fill(fill);

  it("round-trips a list of raw transactions", () => {
    const raws = [raw(1), raw(2, 300), raw(3)];
    expect(decodeTransactionBatch(encodeTransactionBatch(raws), 1024)).toEqual(raws);
  });

  it("refuses what is not a bounded list of bounded byte strings", () => {
    const refused = (bytes: Uint8Array) =>
      expect(() => decodeTransactionBatch(bytes, 1024)).toThrow(WireError);
    refused(new Uint8Array([0xff, 0x01]));
    refused(RLP.encode(raw(1)));
    refused(RLP.encode([]));
    refused(RLP.encode([[raw(1)]]));
    refused(encodeTransactionBatch([raw(1, 2048)]));
    refused(encodeTransactionBatch(Array.from({ length: MAX_GOSSIP_TRANSACTIONS + 1 }, () => raw(1))));
  });
});
