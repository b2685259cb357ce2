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

describe("ChainStore caches", () => {
  const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
  const sizeOf = (store: ChainStore, name: string) => {
    const structure = store.boundedStructures().find((s) => s.name === name)!;
    return { size: structure.size(), bound: structure.bound };
  };

  it("keep at most their bound of decoded blocks and of blocks' receipts when filled past it", async () => {
    const store = new ChainStore(new MemoryKV(), common);
    const receiptBlocks = sizeOf(store, "receipts").bound;
    expect(receiptBlocks).toBe(4_096);
    // Blocks of one small receipt each: far under the byte bound, so only the block bound can hold.
    const receipts: StoredReceipt[] = [
      {
        type: 0,
        status: 1,
        cumulativeGasUsed: 21_000n,
        gasUsed: 21_000n,
        logs: [],
        sender: SENDER,
        contractAddress: undefined,
        txHash: KEY,
      },
    ];
    for (let n = 1; n <= receiptBlocks + 500; n++) {
      const block = createBlock({ header: { number: BigInt(n) } }, { common });
      await store.commitBlock({ block, receipts, stateWrites: [] });
    }
    expect(sizeOf(store, "receipts").size).toBe(receiptBlocks);
    expect(sizeOf(store, "receipts_stored_bytes").size).toBeLessThan(
      sizeOf(store, "receipts_stored_bytes").bound,
    );
    expect(sizeOf(store, "blocks")).toEqual({ size: 512, bound: 512 });
  }, 60_000);

  it("keep at most their byte bound of receipts when blocks are large", async () => {
    const store = new ChainStore(new MemoryKV(), common);
    // Receipts are stored as given: 200 with a log each (about 30 kB stored) on empty blocks.
    const { receipts } = blockWithReceipts(common, 1n, 200);
    for (let n = 1; n <= 400; n++) {
      const block = createBlock({ header: { number: BigInt(n) } }, { common });
      await store.commitBlock({ block, receipts, stateWrites: [] });
    }
    const bytes = sizeOf(store, "receipts_stored_bytes");
    expect(bytes.size).toBeLessThanOrEqual(bytes.bound);
    expect(bytes.size).toBeGreaterThan(bytes.bound * 0.9);
    expect(sizeOf(store, "receipts").size).toBeLessThan(400);
  }, 60_000);
});
