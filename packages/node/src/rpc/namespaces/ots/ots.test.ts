import { createAddressFromString, createContractAddress } from "@ethereumjs/util";
import type { Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { rpc, viemClients } from "../../../e2e/clients.js";
import { TracingService } from "../../../execution/tracing/tracing-service.js";
import { startTestNode, type TestNode } from "../../../testing/test-node.js";

function deployable(runtime: string): Hex {
  const length = (runtime.length / 2).toString(16).padStart(2, "0");
  return `0x60${length}600c60003960${length}6000f3${runtime}`;
}

const ERROR_NO = `08c379a0${"20".padStart(64, "0")}${"2".padStart(64, "0")}${"6e6f".padEnd(64, "0")}`;
/** Reverts with `Error("no")`. */
const REVERTER = `606460${"0c"}60003960646000fd${ERROR_NO}`;
const RECIPIENT = "0x00000000000000000000000000000000000000b0";
const OTHER = "0x00000000000000000000000000000000000000c0";
/** CREATEs a contract whose code is 0x01, then forwards the call's value to RECIPIENT. */
const FACTORY =
  `69600160005360016000f3600052600a60166000f050600060006000600034` + `73${RECIPIENT.slice(2)}5af15000`;

let t: TestNode;
let sender: string;
let factory: string;
let factoryDeploy: Hex;
let factoryCall: Hex;
let reverted: Hex;
let transfers: Hex[];

async function result<T>(method: string, params: unknown[]): Promise<T> {
  const response = await rpc(t.url, method, params);
  if (response.error) throw new Error(JSON.stringify(response.error));
  return response.result as T;
}

async function mined(hash: Hex) {
  return viemClients(t.url).publicClient.waitForTransactionReceipt({ hash });
}

beforeAll(async () => {
  t = await startTestNode();
  const { wallet } = viemClients(t.url);
  sender = wallet.account.address.toLowerCase();
  factoryDeploy = await wallet.sendTransaction({ data: deployable(FACTORY) });
  factory = (await mined(factoryDeploy)).contractAddress!;
  const reverterDeploy = await wallet.sendTransaction({ data: deployable(REVERTER) });
  const reverter = (await mined(reverterDeploy)).contractAddress!;
  factoryCall = await wallet.sendTransaction({ to: factory as Hex, value: 1n, gas: 300_000n });
  await mined(factoryCall);
  reverted = await wallet.sendTransaction({ to: reverter as Hex, gas: 100_000n });
  await mined(reverted);
  transfers = [];
  for (let i = 0; i < 5; i++) {
    const hash = await wallet.sendTransaction({ to: RECIPIENT, value: BigInt(i + 1) });
    await mined(hash);
    transfers.push(hash);
  }
  await mined(await wallet.sendTransaction({ to: OTHER, value: 1n }));
});
afterAll(() => t.stop());

describe("ots trace views", () => {
  it("reports the API level", async () => {
    expect(await result("ots_getApiLevel", [])).toBe(8);
  });

  it("lists internal operations and the flattened call tree", async () => {
    const child = createContractAddress(createAddressFromString(factory), 1n).toString();
    expect(await result("ots_getInternalOperations", [factoryCall])).toEqual([
      { type: 2, from: factory, to: child, value: "0x0" },
      { type: 0, from: factory, to: RECIPIENT, value: "0x1" },
    ]);
    const entries = await result<{ type: string; depth: number; to: string; value: string | null }[]>(
      "ots_traceTransaction",
      [factoryCall],
    );
    expect(entries.map((e) => [e.type, e.depth, e.to, e.value])).toEqual([
      ["CALL", 0, factory, "0x1"],
      ["CREATE", 1, child, "0x0"],
      ["CALL", 1, RECIPIENT, "0x1"],
    ]);
  });

  it("returns a failed transaction's revert data, and 0x for a successful one", async () => {
    expect(await result("ots_getTransactionError", [reverted])).toBe(`0x${ERROR_NO}`);
    expect(await result("ots_getTransactionError", [factoryCall])).toBe("0x");
    const missing = `0x${"22".repeat(32)}`;
    expect((await rpc(t.url, "ots_getTransactionError", [missing])).error).toEqual({
      code: -32000,
      message: `transaction ${missing} not found`,
    });
  });

  it("finds contract creators, deployed by a transaction or by another contract", async () => {
    expect(await result("ots_getContractCreator", [factory])).toEqual({
      hash: factoryDeploy,
      creator: sender,
    });
    const child = createContractAddress(createAddressFromString(factory), 1n).toString();
    expect(await result("ots_getContractCreator", [child])).toEqual({ hash: factoryCall, creator: factory });
    expect(await result("ots_getContractCreator", [RECIPIENT])).toBeNull();
  });

  it("answers hasCode and transactions by sender and nonce", async () => {
    expect(await result("ots_hasCode", [factory, "latest"])).toBe(true);
    expect(await result("ots_hasCode", [RECIPIENT, "latest"])).toBe(false);
    expect(await result("ots_getTransactionBySenderAndNonce", [sender, 0])).toBe(factoryDeploy);
    expect(await result("ots_getTransactionBySenderAndNonce", [sender, 2])).toBe(factoryCall);
    expect(await result("ots_getTransactionBySenderAndNonce", [sender, 999])).toBeNull();
  });
});

describe("ots blocks", () => {
  it("details a block without its transactions, with the fees paid", async () => {
    const receipt = await mined(factoryCall);
    const details = await result<{ block: Record<string, unknown>; totalFees: string; issuance: object }>(
      "ots_getBlockDetails",
      [Number(receipt.blockNumber)],
    );
    expect(details.block.hash).toBe(receipt.blockHash);
    expect(details.block.transactionCount).toBe(1);
    expect(details.block.logsBloom).toBeNull();
    expect(details.block).not.toHaveProperty("transactions");
    expect(BigInt(details.totalFees)).toBe(receipt.gasUsed * receipt.effectiveGasPrice);
    expect(await result("ots_getBlockDetailsByHash", [receipt.blockHash])).toEqual(details);
  });

  it("serves Erigon's header lookup as eth_getBlockByNumber's header fields", async () => {
    const header = await result<Record<string, unknown>>("erigon_getHeaderByNumber", [1]);
    const block = await result<Record<string, unknown>>("eth_getBlockByNumber", ["0x1", false]);
    for (const field of ["hash", "parentHash", "stateRoot", "timestamp", "miner", "number"]) {
      expect(header[field]).toEqual(block[field]);
    }
    expect(await result("erigon_getHeaderByNumber", [1_000_000])).toBeNull();
  });

  it("pages a block's transactions with cropped inputs and receipts without logs", async () => {
    const receipt = await mined(factoryDeploy);
    const page = await result<{
      fullblock: { transactions: { input: string; hash: string }[]; transactionCount: number };
      receipts: { logs: null; logsBloom: null; transactionHash: string }[];
    }>("ots_getBlockTransactions", [Number(receipt.blockNumber), 0, 10]);
    expect(page.fullblock.transactionCount).toBe(1);
    expect(page.fullblock.transactions[0]!.input).toBe(deployable(FACTORY).slice(0, 10));
    expect(page.receipts[0]).toMatchObject({ logs: null, logsBloom: null, transactionHash: factoryDeploy });
    const beyond = await result<{ receipts: unknown[] }>("ots_getBlockTransactions", [
      Number(receipt.blockNumber),
      1,
      10,
    ]);
    expect(beyond.receipts).toEqual([]);
  });
});

interface SearchPage {
  txs: { hash: string; blockNumber: string }[];
  receipts: { transactionHash: string; timestamp: number }[];
  firstPage: boolean;
  lastPage: boolean;
}

describe("ots address search", () => {
  it("pages backwards from the head, newest first", async () => {
    const first = await result<SearchPage>("ots_searchTransactionsBefore", [RECIPIENT, 0, 2]);
    expect(first.txs.map((tx) => tx.hash)).toEqual([transfers[4], transfers[3]]);
    expect(first.receipts.map((r) => r.transactionHash)).toEqual([transfers[4], transfers[3]]);
    expect(typeof first.receipts[0]!.timestamp).toBe("number");
    expect([first.firstPage, first.lastPage]).toEqual([true, false]);
    const next = await result<SearchPage>("ots_searchTransactionsBefore", [
      RECIPIENT,
      Number(first.txs[1]!.blockNumber),
      2,
    ]);
    expect(next.txs.map((tx) => tx.hash)).toEqual([transfers[2], transfers[1]]);
    expect([next.firstPage, next.lastPage]).toEqual([false, false]);
    const last = await result<SearchPage>("ots_searchTransactionsBefore", [
      RECIPIENT,
      Number(next.txs[1]!.blockNumber),
      2,
    ]);
    expect(last.txs.map((tx) => tx.hash)).toEqual([transfers[0]]);
    expect(last.lastPage).toBe(true);
  });

  it("pages forwards from genesis, each page newest first", async () => {
    const oldest = await result<SearchPage>("ots_searchTransactionsAfter", [RECIPIENT, 0, 2]);
    expect(oldest.txs.map((tx) => tx.hash)).toEqual([transfers[1], transfers[0]]);
    expect([oldest.firstPage, oldest.lastPage]).toEqual([false, true]);
    const newer = await result<SearchPage>("ots_searchTransactionsAfter", [
      RECIPIENT,
      Number(oldest.txs[0]!.blockNumber),
      10,
    ]);
    expect(newer.txs.map((tx) => tx.hash)).toEqual([transfers[4], transfers[3], transfers[2]]);
    expect(newer.firstPage).toBe(true);
  });

  it("finds a sender's transactions and refuses oversized pages", async () => {
    const page = await result<SearchPage>("ots_searchTransactionsBefore", [sender, 0, 25]);
    expect(page.txs).toHaveLength(10);
    expect(page.lastPage).toBe(true);
    expect((await rpc(t.url, "ots_searchTransactionsBefore", [sender, 0, 26])).error).toEqual({
      code: -32000,
      message: "max allowed page size: 25",
    });
  });

  it("finds a contract created at the end of a crowded block with one replay of that block", async () => {
    const { wallet, publicClient } = viemClients(t.url);
    await result("evm_setAutomine", [false]);
    let created: Hex;
    try {
      const nonce = await publicClient.getTransactionCount({ address: wallet.account.address });
      for (let i = 0; i < 4; i++) await wallet.sendTransaction({ to: OTHER, value: 1n, nonce: nonce + i });
      created = await wallet.sendTransaction({
        to: factory as Hex,
        value: 1n,
        gas: 300_000n,
        nonce: nonce + 4,
      });
      await result("evm_mine", []);
    } finally {
      await result("evm_setAutomine", [true]);
    }
    const block = await mined(created);
    expect((await publicClient.getBlock({ blockNumber: block.blockNumber })).transactions).toHaveLength(5);
    // The factory's second CREATE: its nonce 2.
    const child = createContractAddress(createAddressFromString(factory), 2n).toString();
    // This node has no execution workers (memory store): its jobs run on this thread, where the
    // replays of blocks can be counted.
    const replays = vi.spyOn(
      TracingService.prototype as unknown as { replay: (...args: unknown[]) => unknown },
      "replay",
    );
    try {
      expect(await result("ots_getContractCreator", [child])).toEqual({ hash: created, creator: factory });
      expect(replays).toHaveBeenCalledTimes(1);
    } finally {
      replays.mockRestore();
    }
  });
});
