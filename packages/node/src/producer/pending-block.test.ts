import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseGwei } from "viem";
import { describe, expect, it } from "vitest";
import type { NodeConfigOverrides } from "../config/node-config.js";
import { devAccount, rpc } from "../e2e/clients.js";
import { startTestNode, type TestNode } from "../testing/test-node.js";

/**
 * Code run as a creation that returns NUMBER, TIMESTAMP, BASEFEE and BLOCKHASH(NUMBER - 1) as four
 * words (NUMBER 0 MSTORE, TIMESTAMP 32 MSTORE, BASEFEE 64 MSTORE, BLOCKHASH(NUMBER-1) 96 MSTORE, RETURN(0,128)).
 */
const CONTEXT_CODE = "0x436000524260205248604052600143034060605260806000f3";

function words(hex: string): bigint[] {
  return Array.from({ length: (hex.length - 2) / 64 }, (_, i) =>
    BigInt(`0x${hex.slice(2 + i * 64, 66 + i * 64)}`),
  );
}

async function transfer(nonce: number, to = devAccount(2).address): Promise<string> {
  return devAccount(1).signTransaction({
    chainId: 1337,
    type: "eip1559",
    nonce,
    to,
    value: 1000n,
    gas: 21_000n,
    maxFeePerGas: parseGwei("10"),
    maxPriorityFeePerGas: parseGwei("1"),
  });
}

/**
 * The same behaviour where the pending block is made: here (a memory store, no execution workers)
 * and on the execution workers (an LMDB store), where the node's thread runs none of it.
 */
const placements: readonly { name: string; persistent: boolean }[] = [
  { name: "built on the node's thread (memory store)", persistent: false },
  { name: "made on the execution workers (LMDB store)", persistent: true },
];

/** Jobs the node has posted to its execution workers so far (its metrics on the loopback RPC port). */
async function workerJobs(t: TestNode): Promise<number> {
  const text = await (await fetch(`${t.url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith("strata_call_worker_calls_total "));
  return Number(line?.split(" ")[1] ?? 0);
}

describe.each(placements)("the pending block, $name", ({ persistent }) => {
  async function startNode(): Promise<TestNode> {
    const overrides: NodeConfigOverrides = { mining: { mode: "manual" } };
    if (!persistent) return startTestNode(overrides);
    const dir = mkdtempSync(join(tmpdir(), "strata-pending-"));
    const t = await startTestNode({ ...overrides, datadir: dir, rpc: { callWorkers: 2 } });
    // A job posted while the workers start waits for them within its own time limit: wait until
    // one answers, so the cases below measure the pending block, not a worker's start.
    for (let attempt = 0; attempt < 30; attempt++) {
      if (!(await rpc(t.url, "eth_call", [{ data: "0x" }, "latest"])).error) break;
    }
    return {
      ...t,
      stop: async () => {
        await t.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }

  it("runs calls in the next block: number, timestamp (evm_setNextBlockTimestamp), base fee, BLOCKHASH of the head", async () => {
    const t = await startNode();
    try {
      await rpc(t.url, "evm_mine", []);
      const head = (await rpc(t.url, "eth_getBlockByNumber", ["latest", false])).result as Record<
        string,
        string
      >;
      const target = BigInt(head.timestamp!) + 1000n;
      await rpc(t.url, "evm_setNextBlockTimestamp", [`0x${target.toString(16)}`]);
      // A call that names a fee sees the block's base fee (one that does not runs with none, as geth).
      const call = { from: devAccount(0).address, data: CONTEXT_CODE, gasPrice: "0x174876e800" };
      const pending = words((await rpc(t.url, "eth_call", [call, "pending"])).result as string);
      const latest = words((await rpc(t.url, "eth_call", [call, "latest"])).result as string);
      expect(pending[0]).toBe(BigInt(head.number!) + 1n);
      expect(latest[0]).toBe(BigInt(head.number!));
      expect(pending[1]).toBe(target);
      const pendingBlock = (await rpc(t.url, "eth_getBlockByNumber", ["pending", false])).result as Record<
        string,
        string
      >;
      // After an empty head the base fee falls by an eighth.
      expect(pending[2]).toBe(BigInt(pendingBlock.baseFeePerGas!));
      expect(pending[2]).toBe(BigInt(head.baseFeePerGas!) - BigInt(head.baseFeePerGas!) / 8n);
      expect(latest[2]).toBe(BigInt(head.baseFeePerGas!));
      expect(BigInt(pendingBlock.timestamp!)).toBe(target);
      expect(pending[3]).toBe(BigInt(head.hash!));
      const single = (await rpc(t.url, "eth_call", [{ data: "0x4360005260206000f3" }, "pending"])).result;
      expect(BigInt(single as string)).toBe(BigInt(head.number!) + 1n);
      // The block then mined carries the timestamp the pending block showed.
      await rpc(t.url, "evm_mine", []);
      const mined = (await rpc(t.url, "eth_getBlockByNumber", ["latest", false])).result as Record<
        string,
        string
      >;
      expect(BigInt(mined.timestamp!)).toBe(target);
    } finally {
      await t.stop();
    }
  });

  it("applies the pool's executable transactions for balance, nonce and the pending block itself", async () => {
    const t = await startNode();
    try {
      const recipient = "0x00000000000000000000000000000000000000aa";
      const before = BigInt((await rpc(t.url, "eth_getBalance", [recipient, "latest"])).result as string);
      const hashes: string[] = [];
      for (let i = 0; i < 2; i++) {
        hashes.push(
          (await rpc(t.url, "eth_sendRawTransaction", [await transfer(i, recipient)])).result as string,
        );
      }
      // A transaction behind a nonce gap is queued, not pending: it is not applied.
      await rpc(t.url, "eth_sendRawTransaction", [await transfer(5, recipient)]);
      const jobsBefore = await workerJobs(t);
      expect(BigInt((await rpc(t.url, "eth_getBalance", [recipient, "pending"])).result as string)).toBe(
        before + 2000n,
      );
      expect(BigInt((await rpc(t.url, "eth_getBalance", [recipient, "latest"])).result as string)).toBe(
        before,
      );
      expect((await rpc(t.url, "eth_getTransactionCount", [devAccount(1).address, "pending"])).result).toBe(
        "0x2",
      );
      const block = (await rpc(t.url, "eth_getBlockByNumber", ["pending", false])).result as Record<
        string,
        unknown
      >;
      const head = (await rpc(t.url, "eth_getBlockByNumber", ["latest", false])).result as Record<
        string,
        string
      >;
      expect(block.number).toBe(`0x${(BigInt(head.number!) + 1n).toString(16)}`);
      expect(block.transactions).toEqual(hashes);
      expect(block.hash).toBeNull();
      expect(block.gasUsed).toBe("0xa410");
      // A call at pending sees the transfers too.
      const balanceCall = (
        await rpc(t.url, "eth_call", [
          // BALANCE(recipient) returned as one word.
          { data: `0x73${recipient.slice(2)}3160005260206000f3` },
          "pending",
        ])
      ).result as string;
      expect(BigInt(balanceCall)).toBe(before + 2000n);
      // With workers, the balance, the block and the call at pending were each answered there.
      if (persistent) expect((await workerJobs(t)) - jobsBefore).toBeGreaterThanOrEqual(3);
      // Mining makes the pending state the latest.
      await rpc(t.url, "evm_mine", []);
      expect(BigInt((await rpc(t.url, "eth_getBalance", [recipient, "latest"])).result as string)).toBe(
        before + 2000n,
      );
      const next = (await rpc(t.url, "eth_getBlockByNumber", ["pending", false])).result as Record<
        string,
        unknown
      >;
      expect(next.transactions).toEqual([]);
    } finally {
      await t.stop();
    }
  });

  it("shows queued dev edits (balance, code, storage, nonce) to reads and calls at pending, not at latest", async () => {
    const t = await startNode();
    try {
      const who = "0x00000000000000000000000000000000000000cc";
      const slot = `0x${"00".repeat(31)}01`;
      await rpc(t.url, "anvil_setBalance", [who, "0x1000"]);
      // Code that returns SLOAD(1) as one word.
      await rpc(t.url, "anvil_setCode", [who, "0x60015460005260206000f3"]);
      await rpc(t.url, "anvil_setStorageAt", [who, slot, `0x${"00".repeat(31)}2a`]);
      await rpc(t.url, "anvil_setNonce", [who, "0x7"]);
      const at = async (method: string, params: unknown[]) => (await rpc(t.url, method, params)).result;
      expect(await at("eth_getBalance", [who, "pending"])).toBe("0x1000");
      expect(await at("eth_getBalance", [who, "latest"])).toBe("0x0");
      expect(await at("eth_getCode", [who, "pending"])).toBe("0x60015460005260206000f3");
      expect(await at("eth_getCode", [who, "latest"])).toBe("0x");
      expect(BigInt((await at("eth_getStorageAt", [who, slot, "pending"])) as string)).toBe(42n);
      expect(await at("eth_getTransactionCount", [who, "pending"])).toBe("0x7");
      expect(BigInt((await at("eth_call", [{ to: who }, "pending"])) as string)).toBe(42n);
      expect(await at("eth_call", [{ to: who }, "latest"])).toBe("0x");
      await rpc(t.url, "evm_mine", []);
      expect(await at("eth_getBalance", [who, "latest"])).toBe("0x1000");
    } finally {
      await t.stop();
    }
  });
});

describe("after a new head", () => {
  /** `strata_cache_size` of the workers' header-only pending blocks (one each at most). */
  async function workerHeaderBlocks(t: TestNode): Promise<number> {
    const text = await (await fetch(`${t.url}/metrics`)).text();
    const line = text
      .split("\n")
      .find((l) => l.startsWith('strata_cache_size{cache="worker_pending_header_blocks"'));
    return Number(line?.split(" ")[1] ?? Number.NaN);
  }

  it("has an execution worker make the empty pending block before any call at pending asks for it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "strata-pending-ready-"));
    const t = await startTestNode({ mining: { mode: "manual" }, datadir: dir, rpc: { callWorkers: 2 } });
    try {
      // The workers have started (and made no pending block: no call named `pending` yet).
      for (let attempt = 0; attempt < 30; attempt++) {
        if (!(await rpc(t.url, "eth_call", [{ data: "0x" }, "latest"])).error) break;
      }
      expect(await workerHeaderBlocks(t)).toBe(0);
      await rpc(t.url, "evm_mine", []);
      let made = 0;
      for (let i = 0; i < 100 && made === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        made = await workerHeaderBlocks(t);
      }
      expect(made).toBe(1);
      // The block made ahead is the one calls at pending run in: the next number.
      const head = BigInt((await rpc(t.url, "eth_blockNumber", [])).result as string);
      const number = (await rpc(t.url, "eth_call", [{ data: "0x4360005260206000f3" }, "pending"])).result;
      expect(BigInt(number as string)).toBe(head + 1n);
      expect(await workerHeaderBlocks(t)).toBe(1);
    } finally {
      await t.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
