import { type Hex, parseEther, parseGwei } from "viem";
import { describe, expect, it } from "vitest";
import { devAccount, rpc, viemClients } from "../../e2e/clients.js";
import { startTestNode, type TestNode } from "../../testing/test-node.js";

type RpcBlock = { number: Hex; timestamp: Hex; hash: Hex; transactions: Hex[] };

async function block(url: string, tag: string | number = "latest"): Promise<RpcBlock> {
  const at = typeof tag === "number" ? `0x${tag.toString(16)}` : tag;
  return (await rpc(url, "eth_getBlockByNumber", [at, false])).result as RpcBlock;
}

async function result(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const response = await rpc(url, method, params);
  if (response.error) throw new Error(`${method}: ${response.error.message}`);
  return response.result;
}

async function withNode(mode: "instant" | "manual", run: (t: TestNode) => Promise<void>): Promise<void> {
  const t = await startTestNode({ mining: { mode } });
  try {
    await run(t);
  } finally {
    await t.stop();
  }
}

/** The account of Hardhat's documentation examples. */
const HARDHAT_EXAMPLE = "0x0d2026b3EE6eC71FC6746ADb6311F6d3Ba1C000B";

describe("dev methods as Hardhat and anvil take them", () => {
  it("evm_setNextBlockTimestamp, evm_increaseTime and evm_mine take JSON numbers and hex quantities", () =>
    withNode("manual", async (t) => {
      expect(await result(t.url, "evm_setNextBlockTimestamp", [2_000_000_000])).toBeNull();
      expect(BigInt((await block(t.url, "pending")).timestamp)).toBe(2_000_000_000n);
      await result(t.url, "evm_mine", []);
      expect(BigInt((await block(t.url)).timestamp)).toBe(2_000_000_000n);
      // The clock continues from the chosen timestamp; evm_increaseTime answers the total offset.
      const offset = (await result(t.url, "evm_increaseTime", [3600])) as number;
      expect(typeof offset).toBe("number");
      expect(await result(t.url, "evm_increaseTime", ["0xe10"])).toBe(offset + 3600);
      await result(t.url, "evm_mine", []);
      const moved = BigInt((await block(t.url)).timestamp);
      expect(moved).toBeGreaterThanOrEqual(2_000_000_000n + 7200n);
      expect(moved).toBeLessThanOrEqual(2_000_000_000n + 7203n);
      expect(await result(t.url, "evm_mine", [2_100_000_000])).toBe("0x0");
      expect(BigInt((await block(t.url)).timestamp)).toBe(2_100_000_000n);
      await result(t.url, "evm_mine", ["0x7d2b7600"]);
      expect((await block(t.url)).timestamp).toBe("0x7d2b7600");
      // anvil's object form.
      const before = Number((await block(t.url)).number);
      await result(t.url, "evm_mine", [{ blocks: 2 }]);
      expect(Number((await block(t.url)).number)).toBe(before + 2);
      // Timestamps must increase.
      const past = await rpc(t.url, "evm_setNextBlockTimestamp", [1]);
      expect(past.error?.code).toBe(-32602);
      expect((await rpc(t.url, "evm_mine", [1])).error?.code).toBe(-32602);
      expect((await rpc(t.url, "evm_increaseTime", [-5])).error?.code).toBe(-32602);
    }));

  it("anvil_mine and hardhat_mine honour the interval between blocks", () =>
    withNode("manual", async (t) => {
      const start = Number((await block(t.url)).number);
      expect(await result(t.url, "anvil_mine", ["0x3", "0x3c"])).toBeNull();
      const mined = await Promise.all([1, 2, 3].map((i) => block(t.url, start + i)));
      expect(Number(mined[2]!.number)).toBe(start + 3);
      expect(BigInt(mined[1]!.timestamp) - BigInt(mined[0]!.timestamp)).toBe(60n);
      expect(BigInt(mined[2]!.timestamp) - BigInt(mined[1]!.timestamp)).toBe(60n);
      // Hardhat's example: 1,000 blocks an hour apart... with a JSON number of blocks here.
      expect(await result(t.url, "hardhat_mine", [100, 3600])).toBe(true);
      const last = await block(t.url);
      expect(Number(last.number)).toBe(start + 103);
      expect(BigInt(last.timestamp) - BigInt(mined[2]!.timestamp)).toBeGreaterThanOrEqual(99n * 3600n);
      // The clock continues after the last mined block.
      await result(t.url, "evm_mine", []);
      expect(BigInt((await block(t.url)).timestamp) - BigInt(last.timestamp)).toBeLessThanOrEqual(2n);
    }));

  it("set balance, code, nonce and storage with Hardhat's examples: at once under automine", () =>
    withNode("instant", async (t) => {
      expect(await result(t.url, "hardhat_setBalance", [HARDHAT_EXAMPLE, "0x1000"])).toBe(true);
      expect(await result(t.url, "eth_getBalance", [HARDHAT_EXAMPLE, "latest"])).toBe("0x1000");
      expect(await result(t.url, "hardhat_setCode", [HARDHAT_EXAMPLE, "0xa1a2a3"])).toBe(true);
      expect(await result(t.url, "eth_getCode", [HARDHAT_EXAMPLE, "latest"])).toBe("0xa1a2a3");
      expect(await result(t.url, "hardhat_setNonce", [HARDHAT_EXAMPLE, "0x21"])).toBe(true);
      expect(await result(t.url, "eth_getTransactionCount", [HARDHAT_EXAMPLE, "latest"])).toBe("0x21");
      const word = `0x${"0".repeat(63)}1`;
      expect(await result(t.url, "hardhat_setStorageAt", [HARDHAT_EXAMPLE, "0x0", word])).toBe(true);
      expect(await result(t.url, "eth_getStorageAt", [HARDHAT_EXAMPLE, "0x0", "latest"])).toBe(word);
      // anvil's names answer as anvil does, and take JSON numbers.
      expect(await result(t.url, "anvil_setBalance", [HARDHAT_EXAMPLE, 1000])).toBeNull();
      expect(await result(t.url, "eth_getBalance", [HARDHAT_EXAMPLE, "latest"])).toBe("0x3e8");
      expect(await result(t.url, "anvil_setNonce", [HARDHAT_EXAMPLE, 5])).toBeNull();
      expect(await result(t.url, "eth_getTransactionCount", [HARDHAT_EXAMPLE, "latest"])).toBe("0x5");
      expect(await result(t.url, "anvil_setStorageAt", [HARDHAT_EXAMPLE, "0x1", word])).toBe(true);
      expect(await result(t.url, "eth_getStorageAt", [HARDHAT_EXAMPLE, "0x1", "latest"])).toBe(word);
      // The edits are committed with a block: they survive as any state does.
      expect(await result(t.url, "eth_getCode", [HARDHAT_EXAMPLE, "latest"])).toBe("0xa1a2a3");
    }));

  it("without automine, edits show at pending and reach latest with the next block", () =>
    withNode("manual", async (t) => {
      const head = Number((await block(t.url)).number);
      await result(t.url, "anvil_setBalance", [HARDHAT_EXAMPLE, "0x1000"]);
      await result(t.url, "anvil_setCode", [HARDHAT_EXAMPLE, "0x6001"]);
      expect(Number((await block(t.url)).number)).toBe(head);
      expect(await result(t.url, "eth_getBalance", [HARDHAT_EXAMPLE, "pending"])).toBe("0x1000");
      expect(await result(t.url, "eth_getCode", [HARDHAT_EXAMPLE, "pending"])).toBe("0x6001");
      expect(await result(t.url, "eth_getBalance", [HARDHAT_EXAMPLE, "latest"])).toBe("0x0");
      await result(t.url, "evm_mine", []);
      expect(await result(t.url, "eth_getBalance", [HARDHAT_EXAMPLE, "latest"])).toBe("0x1000");
      expect(await result(t.url, "eth_getCode", [HARDHAT_EXAMPLE, "latest"])).toBe("0x6001");
    }));

  it("without automine, the pool takes a transaction that only a queued balance or nonce edit allows", () =>
    withNode("manual", async (t) => {
      const account = devAccount(3);
      const chainId = Number(await result(t.url, "eth_chainId"));
      const transfer = (nonce: number) =>
        account.signTransaction({
          chainId,
          type: "eip1559",
          nonce,
          to: HARDHAT_EXAMPLE,
          value: 1n,
          gas: 21_000n,
          maxFeePerGas: parseGwei("100"),
          maxPriorityFeePerGas: parseGwei("1"),
        });
      await result(t.url, "anvil_setNonce", [account.address, 5]);
      await result(t.url, "anvil_setBalance", [account.address, "0x0"]);
      // Refused while the balance edit stands, as anvil refuses it.
      const broke = await rpc(t.url, "eth_sendRawTransaction", [await transfer(5)]);
      expect(broke.error?.message).toMatch(/insufficient funds/);
      await result(t.url, "anvil_setBalance", [account.address, `0x${parseEther("1").toString(16)}`]);
      const hash = await result(t.url, "eth_sendRawTransaction", [await transfer(5)]);
      // Executable at once (nonce 5 is the next one once the edits apply), so the next block takes it.
      expect((await block(t.url, "pending")).transactions).toEqual([hash]);
      const low = await rpc(t.url, "eth_sendRawTransaction", [await transfer(4)]);
      expect(low.error?.message).toMatch(/nonce too low/);
      await result(t.url, "evm_mine", []);
      expect((await block(t.url)).transactions).toEqual([hash]);
    }));

  it("eth_sendTransaction from an impersonated account (anvil_ and hardhat_ names)", () =>
    withNode("instant", async (t) => {
      const whale = "0x364d6d0333432c3ac016ca832fb8594a8ce43ca6";
      const to = "0x00000000000000000000000000000000000000bb";
      const send = (from: string) =>
        rpc(t.url, "eth_sendTransaction", [{ from, to, value: "0x64", maxFeePerGas: "0x174876e800" }]);
      expect((await send(whale)).error?.message).toBe("unknown account");
      await result(t.url, "anvil_setBalance", [whale, `0x${parseEther("1").toString(16)}`]);
      expect(await result(t.url, "anvil_impersonateAccount", [whale])).toBeNull();
      const hash = (await send(whale)).result as Hex;
      const receipt = (await result(t.url, "eth_getTransactionReceipt", [hash])) as {
        status: Hex;
        from: Hex;
      };
      expect(receipt.status).toBe("0x1");
      expect(receipt.from).toBe(whale);
      const tx = (await result(t.url, "eth_getTransactionByHash", [hash])) as { from: Hex };
      expect(tx.from).toBe(whale);
      expect(await result(t.url, "eth_getBalance", [to, "latest"])).toBe("0x64");
      expect(await result(t.url, "anvil_stopImpersonatingAccount", [whale])).toBeNull();
      expect((await send(whale)).error?.message).toBe("unknown account");
      expect(await result(t.url, "hardhat_impersonateAccount", [whale])).toBe(true);
      expect((await send(whale)).error).toBeUndefined();
      expect(await result(t.url, "hardhat_stopImpersonatingAccount", [whale])).toBe(true);
      expect((await send(whale)).error?.message).toBe("unknown account");
    }));

  it("evm_setAutomine and evm_setIntervalMining switch the mining mode", () =>
    withNode("instant", async (t) => {
      expect(await result(t.url, "evm_setAutomine", [false])).toBeNull();
      const raw = await devAccount(1).signTransaction({
        chainId: 1337,
        type: "eip1559",
        nonce: 0,
        to: devAccount(2).address,
        value: 1n,
        gas: 21_000n,
        maxFeePerGas: parseGwei("10"),
        maxPriorityFeePerGas: parseGwei("1"),
      });
      const hash = (await result(t.url, "eth_sendRawTransaction", [raw])) as Hex;
      await new Promise((r) => setTimeout(r, 100));
      expect(await result(t.url, "eth_getTransactionReceipt", [hash])).toBeNull();
      await result(t.url, "evm_setAutomine", [true]);
      for (let i = 0; i < 100 && !(await result(t.url, "eth_getTransactionReceipt", [hash])); i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(await result(t.url, "eth_getTransactionReceipt", [hash])).not.toBeNull();
      // Interval mining every 1,000 ms (a JSON number as Hardhat documents), then off again.
      await result(t.url, "evm_setAutomine", [false]);
      const head = Number((await block(t.url)).number);
      expect(await result(t.url, "evm_setIntervalMining", [1000])).toBeNull();
      await new Promise((r) => setTimeout(r, 2300));
      expect(await result(t.url, "evm_setIntervalMining", ["0x0"])).toBeNull();
      const after = Number((await block(t.url)).number);
      expect(after - head).toBeGreaterThanOrEqual(1);
      await new Promise((r) => setTimeout(r, 1200));
      expect(Number((await block(t.url)).number)).toBe(after);
    }));

  it("viem's test client (anvil mode) drives them", () =>
    withNode("instant", async (t) => {
      const { testClient, publicClient } = viemClients(t.url);
      const address = "0x00000000000000000000000000000000000000cc";
      await testClient.setBalance({ address, value: parseEther("2") });
      expect(await publicClient.getBalance({ address })).toBe(parseEther("2"));
      await testClient.setNonce({ address, nonce: 7 });
      expect(await publicClient.getTransactionCount({ address })).toBe(7);
      await testClient.setCode({ address, bytecode: "0x60016000" });
      expect(await publicClient.getCode({ address })).toBe("0x60016000");
      const start = await publicClient.getBlockNumber();
      await testClient.mine({ blocks: 2, interval: 30 });
      const [a, b] = await Promise.all(
        [1n, 2n].map((n) => publicClient.getBlock({ blockNumber: start + n })),
      );
      expect(b!.timestamp - a!.timestamp).toBe(30n);
      await testClient.setNextBlockTimestamp({ timestamp: 2_200_000_000n });
      await testClient.mine({ blocks: 1 });
      expect((await publicClient.getBlock()).timestamp).toBe(2_200_000_000n);
      await testClient.increaseTime({ seconds: 100 });
      await testClient.mine({ blocks: 1 });
      expect((await publicClient.getBlock()).timestamp).toBeGreaterThanOrEqual(2_200_000_100n);
    }));

  it("answer -32601 on other networks", async () => {
    const t = await startTestNode({ network: "mainnet", mining: { mode: "manual" } });
    try {
      const address = HARDHAT_EXAMPLE;
      const calls: [string, unknown[]][] = [
        ["evm_mine", []],
        ["anvil_mine", [1, 60]],
        ["hardhat_mine", []],
        ["evm_setNextBlockTimestamp", [2_000_000_000]],
        ["evm_increaseTime", [60]],
        ["evm_setAutomine", [true]],
        ["evm_setIntervalMining", [1000]],
        ["anvil_setBalance", [address, "0x1"]],
        ["hardhat_setBalance", [address, "0x1"]],
        ["anvil_setCode", [address, "0x00"]],
        ["anvil_setNonce", [address, 1]],
        ["anvil_setStorageAt", [address, "0x0", `0x${"0".repeat(64)}`]],
        ["anvil_impersonateAccount", [address]],
        ["hardhat_stopImpersonatingAccount", [address]],
      ];
      for (const [method, params] of calls) {
        expect((await rpc(t.url, method, params)).error?.code, method).toBe(-32601);
      }
    } finally {
      await t.stop();
    }
  });
});
