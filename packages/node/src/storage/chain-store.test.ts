import { createBlock } from "@ethereumjs/block";
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createTx } from "@ethereumjs/tx";
import { describe, expect, it } from "vitest";
import { ChainStore } from "./chain-store.js";
import { MemoryKV } from "./memory-kv.js";
import type { StoredReceipt } from "./records.js";

const KEY = new Uint8Array(32).fill(9);
const SENDER = new Uint8Array(20).fill(0x5e);

/** A block of `count` transfers (number `number`) and its receipts, each with one log. */
function blockWithReceipts(common: Common, number: bigint, count: number) {
  const txs = Array.from({ length: count }, (_, i) =>
    createTx(
      { nonce: BigInt(i), gasLimit: 21_000n, gasPrice: 1n, to: new Uint8Array(20).fill(i) },
      { common },
    ).sign(KEY),
  );
  const block = createBlock({ header: { number }, transactions: txs }, { common });
  const receipts: StoredReceipt[] = txs.map((tx, i) => ({
    type: 0,
    status: 1,
    cumulativeGasUsed: 21_000n * BigInt(i + 1),
    gasUsed: 21_000n,
    logs: [{ address: SENDER, topics: [new Uint8Array(32).fill(i)], data: Uint8Array.of(i) }],
    sender: SENDER,
    contractAddress: undefined,
    txHash: tx.hash(),
  }));
  return { block, receipts };
}

/** A MemoryKV that counts reads of the receipts bucket. */
class CountingKV extends MemoryKV {
  receiptReads = 0;
  override get(...args: Parameters<MemoryKV["get"]>) {
    if (args[0] === "receipts") this.receiptReads++;
    return super.get(...args);
  }
}

describe("ChainStore receipts", () => {
  const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });

  it("answers a committed block's receipts without reading or decoding them again", async () => {
    const kv = new CountingKV();
    const store = new ChainStore(kv, common);
    const { block, receipts } = blockWithReceipts(common, 1n, 3);
    await store.commitBlock({ block, receipts, stateWrites: [] });
    const first = store.receipts(block.hash());
    expect(first).toEqual(receipts);
    expect(store.receipts(block.hash())).toBe(first);
    expect(kv.receiptReads).toBe(0);
  });

  it("decodes a stored block's receipts once for repeated reads, with the same content", async () => {
    const kv = new CountingKV();
    const { block, receipts } = blockWithReceipts(common, 1n, 5);
    await new ChainStore(kv, common).commitBlock({ block, receipts, stateWrites: [] });
    const reopened = new ChainStore(kv, common);
    const read = reopened.receipts(block.hash());
    expect(read).toEqual(receipts);
    for (let i = 0; i < 10; i++) expect(reopened.receipts(block.hash())).toBe(read);
    expect(kv.receiptReads).toBe(1);
    expect(reopened.receipts(new Uint8Array(32))).toBeUndefined();
  });
});
