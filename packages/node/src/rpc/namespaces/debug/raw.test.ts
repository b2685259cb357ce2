import { createMPT } from "@ethereumjs/mpt";
import { TestToken } from "@strata/contracts";
import { encodeFunctionData, fromRlp, type Hex, hexToBytes, keccak256, numberToHex, toRlp } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccount, rpc, viemClients } from "../../../e2e/clients.js";
import { startTestNode, type TestNode } from "../../../testing/test-node.js";

const MISSING_HASH = `0x${"ee".repeat(32)}`;

async function result<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await rpc(url, method, params);
  expect(response.error, `${method} ${JSON.stringify(params)}`).toBeUndefined();
  return response.result as T;
}

/** The root of a trie of `values` keyed by RLP(index), as transactions and receipts roots are built. */
async function trieRoot(values: readonly Hex[]): Promise<Hex> {
  const trie = await createMPT();
  for (let i = 0; i < values.length; i++)
    await trie.put(hexToBytes(toRlp(i === 0 ? "0x" : numberToHex(i))), hexToBytes(values[i]!));
  return `0x${Buffer.from(trie.root()).toString("hex")}`;
}

describe("debug raw getters", () => {
  let t: TestNode;
  let txHashes: Hex[];
  let blockHash: Hex;

  beforeAll(async () => {
    t = await startTestNode({ mining: { mode: "manual" } });
    const { wallet, publicClient } = viemClients(t.url);
    const deploy = await wallet.deployContract({
      abi: TestToken.abi,
      bytecode: TestToken.bytecode,
      args: ["Raw", "RAW", 1000n],
      nonce: 0,
    });
    const transfer = await wallet.sendTransaction({
      to: devAccount(4).address,
      value: 3n,
      type: "legacy",
      nonce: 1,
      gas: 21_000n,
    });
    await rpc(t.url, "evm_mine");
    const receipt = await publicClient.getTransactionReceipt({ hash: deploy });
    const token = receipt.contractAddress!;
    const tokenTransfer = await wallet.sendTransaction({
      to: token,
      data: encodeFunctionData({
        abi: TestToken.abi,
        functionName: "transfer",
        args: [devAccount(5).address, 9n],
      }),
      nonce: 2,
    });
    await rpc(t.url, "evm_mine");
    txHashes = [deploy, transfer, tokenTransfer];
    blockHash = (await publicClient.getBlock({ blockNumber: 1n })).hash;
  });

  afterAll(() => t?.stop());

  it("debug_getRawHeader hashes to the block hash, by number, tag and hash", async () => {
    for (const at of ["0x1", "latest", "earliest"]) {
      const raw = await result<Hex>(t.url, "debug_getRawHeader", [at]);
      const block = await result<{ hash: Hex }>(t.url, "eth_getBlockByNumber", [at, false]);
      expect(keccak256(raw)).toBe(block.hash);
    }
    expect(keccak256(await result<Hex>(t.url, "debug_getRawHeader", [blockHash]))).toBe(blockHash);
  });

  it("eth_getHeaderByNumber/ByHash serve the block's header fields", async () => {
    const block = await result<Record<string, unknown>>(t.url, "eth_getBlockByNumber", ["0x1", false]);
    const { size: _, transactions: __, uncles: ___, withdrawals: ____, ...header } = block;
    expect(await result(t.url, "eth_getHeaderByNumber", ["0x1"])).toEqual(header);
    expect(await result(t.url, "eth_getHeaderByHash", [blockHash])).toEqual(header);
    expect(await result(t.url, "eth_getHeaderByNumber", ["0x64"])).toBeNull();
    expect(await result(t.url, "eth_getHeaderByHash", [MISSING_HASH])).toBeNull();
  });

  it("debug_getRawBlock decodes to the header, transactions and (empty) uncles of the block", async () => {
    const raw = await result<Hex>(t.url, "debug_getRawBlock", ["0x1"]);
    const decoded = fromRlp(raw) as unknown[];
    expect(keccak256(toRlp(decoded[0] as Hex[]))).toBe(blockHash);
    const transactions = decoded[1] as (Hex | Hex[])[];
    expect(transactions).toHaveLength(2);
    // A typed transaction is an RLP string holding its envelope; a legacy one is an RLP list.
    const encoded = transactions.map((tx) => (typeof tx === "string" ? tx : toRlp(tx)));
    expect(encoded.map((tx) => keccak256(tx))).toEqual(txHashes.slice(0, 2));
    expect(decoded[2]).toEqual([]);
    const header = await result<{ transactionsRoot: Hex }>(t.url, "eth_getBlockByNumber", ["0x1", false]);
    expect(await trieRoot(encoded)).toBe(header.transactionsRoot);
  });

  it("debug_getRawReceipts rebuilds the receipts root of the block", async () => {
    for (const at of ["0x1", "0x2"]) {
      const receipts = await result<Hex[]>(t.url, "debug_getRawReceipts", [at]);
      const block = await result<{ receiptsRoot: Hex }>(t.url, "eth_getBlockByNumber", [at, false]);
      expect(receipts.length).toBeGreaterThan(0);
      expect(await trieRoot(receipts)).toBe(block.receiptsRoot);
    }
    expect(await result(t.url, "debug_getRawReceipts", ["0x0"])).toEqual([]);
  });

  it("eth_getTransactionReceipt's logsBloom is that of its logs: the bloom of a block holding only it", async () => {
    const receipt = await result<{ logsBloom: Hex; blockNumber: Hex }>(t.url, "eth_getTransactionReceipt", [
      txHashes[2],
    ]);
    const block = await result<{ logsBloom: Hex }>(t.url, "eth_getBlockByNumber", [
      receipt.blockNumber,
      false,
    ]);
    expect(receipt.logsBloom).toMatch(/[1-9a-f]/);
    expect(receipt.logsBloom).toBe(block.logsBloom);
  });

  it("debug_getRawTransaction hashes to the transaction hash, mined or pending", async () => {
    for (const hash of txHashes) {
      expect(keccak256(await result<Hex>(t.url, "debug_getRawTransaction", [hash]))).toBe(hash);
    }
    const { wallet } = viemClients(t.url, 1);
    const pending = await wallet.sendTransaction({ to: devAccount(6).address, value: 1n });
    expect(keccak256(await result<Hex>(t.url, "debug_getRawTransaction", [pending]))).toBe(pending);
    expect(await result(t.url, "debug_getRawTransaction", [MISSING_HASH])).toBeNull();
  });

  it("answers beyond the chain as geth: null by number, an error for an unknown hash", async () => {
    expect(await result(t.url, "debug_getRawHeader", ["0x64"])).toBeNull();
    expect(await result(t.url, "debug_getRawBlock", ["0x64"])).toBeNull();
    expect(await result(t.url, "debug_getRawReceipts", ["0x64"])).toBeNull();
    expect(await result(t.url, "debug_getRawReceipts", [MISSING_HASH])).toEqual([]);
    for (const method of ["debug_getRawHeader", "debug_getRawBlock"]) {
      const response = await rpc(t.url, method, [MISSING_HASH]);
      expect(response.error?.code, method).toBe(-32000);
      expect(response.error?.message).toContain("not found");
    }
    expect((await rpc(t.url, "debug_getRawBlock", ["0xzz"])).error?.code).toBe(-32602);
    expect((await rpc(t.url, "debug_getRawTransaction", ["0x12"])).error?.code).toBe(-32602);
  });

  it("block access lists: none kept, so -32001 for a block and null beyond the chain", async () => {
    for (const method of ["debug_getRawBlockAccessList", "eth_getBlockAccessList"]) {
      expect((await rpc(t.url, method, ["0x1"])).error?.code, method).toBe(-32001);
      expect(await result(t.url, method, ["0x64"]), method).toBeNull();
    }
  });

  it("debug_getBadBlocks is empty: invalid blocks are never stored", async () => {
    expect(await result(t.url, "debug_getBadBlocks")).toEqual([]);
  });
});
