import { setTimeout as sleep } from "node:timers/promises";
import { bytesToHex, createAddressFromString } from "@ethereumjs/util";
import { parseGwei } from "viem";
import { describe, expect, it, vi } from "vitest";
import { devAccount, rawRpc, rpc } from "../e2e/clients.js";
import { BlockExecutor } from "../execution/block/block-executor.js";
import { startTestNode } from "../testing/test-node.js";

async function blockNumber(url: string): Promise<number> {
  return Number((await rpc(url, "eth_blockNumber")).result);
}

async function signedTransfer(nonce: number): Promise<string> {
  return devAccount(1).signTransaction({
    chainId: 1337,
    type: "eip1559",
    nonce,
    to: devAccount(2).address,
    value: 1n,
    gas: 21_000n,
    maxFeePerGas: parseGwei("10"),
    maxPriorityFeePerGas: parseGwei("1"),
  });
}

describe("block production modes", () => {
  it("leaves the head's account reads equal to the trie's, for the accounts a block changed", async () => {
    const t = await startTestNode({ mining: { mode: "manual" } });
    try {
      for (let i = 0; i < 3; i++) await rpc(t.url, "eth_sendRawTransaction", [await signedTransfer(i)]);
      await t.node.producer.mine(2);
      const { chain } = t.node;
      const head = chain.head;
      const fromTrie = chain.states.at(head.header.stateRoot);
      const changed = [
        devAccount(1).address,
        devAccount(2).address,
        head.header.coinbase.toString(),
        "0x0000000000000000000000000000000000001000",
      ].map((a) => a.toLowerCase());
      for (const address of changed) {
        const seen = await chain.account(head, address);
        const stored = await fromTrie.getAccount(createAddressFromString(address));
        expect(seen && bytesToHex(seen.serialize())).toBe(stored && bytesToHex(stored.serialize()));
      }
      expect((await chain.account(head, devAccount(1).address.toLowerCase()))?.nonce).toBe(3n);
    } finally {
      await t.stop();
    }
  });

  it("instant: mines accepted transactions at once, many per block under load", async () => {
    const t = await startTestNode({ mining: { mode: "instant" } });
    try {
      const raws = await Promise.all(Array.from({ length: 40 }, (_, i) => signedTransfer(i)));
      // One batch: its entries reach the pool together, however slowly this machine opens connections.
      const batch = raws.map((raw, id) => ({
        jsonrpc: "2.0",
        id,
        method: "eth_sendRawTransaction",
        params: [raw],
      }));
      const answers = (await rawRpc(t.url, JSON.stringify(batch))).body as { result: string }[];
      const hashes = answers.map((answer) => answer.result);
      expect(hashes.every((hash) => /^0x[0-9a-f]{64}$/.test(hash))).toBe(true);
      for (
        let i = 0;
        i < 100 &&
        (await rpc(t.url, "eth_getTransactionCount", [devAccount(1).address, "latest"])).result !== "0x28";
        i++
      ) {
        await new Promise((r) => setTimeout(r, 20));
      }
      const receipts = await Promise.all(
        hashes.map(
          async (h) => (await rpc(t.url, "eth_getTransactionReceipt", [h])).result as { blockNumber: string },
        ),
      );
      expect(receipts.every((r) => r !== null)).toBe(true);
      const blocks = new Set(receipts.map((r) => r.blockNumber));
      expect(blocks.size).toBeLessThan(10);
    } finally {
      await t.stop();
    }
  });

  it("instant: a block built while transactions kept arriving is followed by a gathering pause", async () => {
    // Blocks that take 30 ms more to build, and when each build started and ended.
    const builds: { start: number; end: number }[] = [];
    let started = 0;
    const build = BlockExecutor.prototype.build;
    const slow = vi.spyOn(BlockExecutor.prototype, "build").mockImplementation(async function (
      this: BlockExecutor,
      ...args: Parameters<BlockExecutor["build"]>
    ) {
      const start = performance.now();
      started++;
      await sleep(30);
      try {
        return await build.apply(this, args);
      } finally {
        builds.push({ start, end: performance.now() });
      }
    });
    const t = await startTestNode({ mining: { mode: "instant" } });
    try {
      const [first, second, third] = await Promise.all([0, 1, 2].map((n) => signedTransfer(n)));
      const send = async (raw: string) =>
        (await rpc(t.url, "eth_sendRawTransaction", [raw])).result as string;
      // Reaches an idle producer: answered once its block is committed.
      const firstSent = send(first!);
      while (started === 0) await sleep(1);
      await sleep(5);
      // Arrives while the first block is being built: the load is now a stream, answered at once.
      const secondSent = send(second!);
      while (builds.length === 0) await sleep(1);
      // Arrives once the first block is built, before the next one starts (the producer gathers).
      const thirdSent = send(third!);
      const hashes = await Promise.all([firstSent, secondSent, thirdSent]);
      const blockOf = async (hash: string) => {
        for (let i = 0; i < 1000; i++) {
          const receipt = (await rpc(t.url, "eth_getTransactionReceipt", [hash])).result as {
            blockNumber: string;
          } | null;
          if (receipt) return receipt.blockNumber;
          await sleep(5);
        }
        throw new Error(`${hash} not mined`);
      };
      const [a, b, c] = await Promise.all(hashes.map(blockOf));
      expect(Number(b)).toBe(Number(a) + 1);
      expect(c).toBe(b);
      // The second block started no sooner than the first took to build (timers may fire 1 ms early).
      const [one, two] = builds as [{ start: number; end: number }, { start: number; end: number }];
      expect(two.start - one.end).toBeGreaterThanOrEqual(Math.min(one.end - one.start, 50) - 2);
    } finally {
      await t.stop();
      slow.mockRestore();
    }
  });

  it("interval: mines a block every block time, empty or not", async () => {
    const t = await startTestNode({ mining: { mode: "interval", blockTimeSeconds: 1 } });
    try {
      const start = await blockNumber(t.url);
      const hash = (await rpc(t.url, "eth_sendRawTransaction", [await signedTransfer(0)])).result;
      expect((await rpc(t.url, "eth_getTransactionReceipt", [hash])).result).toBeNull();
      await new Promise((r) => setTimeout(r, 2300));
      expect(await blockNumber(t.url)).toBeGreaterThanOrEqual(start + 2);
      expect((await rpc(t.url, "eth_getTransactionReceipt", [hash])).result).not.toBeNull();
      const timestamps = await Promise.all(
        [start + 1, start + 2].map(async (n) =>
          Number(
            (
              (await rpc(t.url, "eth_getBlockByNumber", [`0x${n.toString(16)}`, false])).result as {
                timestamp: string;
              }
            ).timestamp,
          ),
        ),
      );
      expect(timestamps[1]! - timestamps[0]!).toBeGreaterThanOrEqual(1);
    } finally {
      await t.stop();
    }
  });

  it("manual: mines only on evm_mine / anvil_mine, with strictly increasing timestamps", async () => {
    const t = await startTestNode({ mining: { mode: "manual" } });
    try {
      await rpc(t.url, "eth_sendRawTransaction", [await signedTransfer(0)]);
      await new Promise((r) => setTimeout(r, 100));
      expect(await blockNumber(t.url)).toBe(0);
      await rpc(t.url, "evm_mine");
      expect(await blockNumber(t.url)).toBe(1);
      await rpc(t.url, "anvil_mine", ["0x5"]);
      expect(await blockNumber(t.url)).toBe(6);
      await rpc(t.url, "evm_setNextBlockTimestamp", ["0xf0000000"]);
      await rpc(t.url, "evm_mine");
      const block = (await rpc(t.url, "eth_getBlockByNumber", ["latest", false])).result as {
        timestamp: string;
      };
      expect(block.timestamp).toBe("0xf0000000");
      await rpc(t.url, "evm_mine");
      const next = (await rpc(t.url, "eth_getBlockByNumber", ["latest", false])).result as {
        timestamp: string;
      };
      expect(BigInt(next.timestamp)).toBe(0xf0000001n);
    } finally {
      await t.stop();
    }
  });

  it("offers the mining controls only on development networks", async () => {
    const t = await startTestNode({ network: "mainnet", mining: { mode: "manual" } });
    try {
      for (const method of ["evm_mine", "anvil_mine", "evm_setNextBlockTimestamp"]) {
        const response = await rpc(t.url, method, method === "evm_setNextBlockTimestamp" ? ["0x1"] : []);
        expect(response.error?.code, method).toBe(-32601);
      }
      expect((await rpc(t.url, "eth_chainId")).result).toBe("0x343a");
      expect((await rpc(t.url, "eth_accounts")).result).toEqual([]);
    } finally {
      await t.stop();
    }
  });
});
