import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestToken } from "@strata/contracts";
import { parseEther as ethersParseEther, JsonRpcProvider, Wallet } from "ethers";
import { type Address, type Hex, parseEther, parseGwei, toHex } from "viem";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { devAccount, rpc, viemClients } from "../../e2e/clients.js";
import { startTestNode, type TestNode } from "../../testing/test-node.js";

type RpcBlock = { number: Hex; timestamp: Hex; hash: Hex };
type RpcLog = { transactionHash: Hex; removed: boolean; blockNumber: Hex };

async function result(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const response = await rpc(url, method, params);
  if (response.error) throw new Error(`${method}: ${response.error.message}`);
  return response.result;
}

/** The head's number, asked afresh (viem's getBlockNumber may answer from its cache). */
async function blockNumber(url: string): Promise<bigint> {
  return BigInt((await result(url, "eth_blockNumber")) as Hex);
}

async function head(url: string): Promise<RpcBlock> {
  return (await result(url, "eth_getBlockByNumber", ["latest", false])) as RpcBlock;
}

async function withNode(
  overrides: Parameters<typeof startTestNode>[0],
  run: (t: TestNode) => Promise<void>,
): Promise<void> {
  const t = await startTestNode(overrides);
  try {
    await run(t);
  } finally {
    await t.stop();
  }
}

/** Deploys the test ERC-20 from dev account 0; returns its address. */
async function deployToken(url: string): Promise<Address> {
  const { wallet, publicClient } = viemClients(url);
  const hash = await wallet.deployContract({
    abi: TestToken.abi,
    bytecode: TestToken.bytecode,
    args: ["Snap", "SNP", parseEther("1000")],
  });
  return (await publicClient.waitForTransactionReceipt({ hash })).contractAddress!;
}

/** A signed transfer of `value` wei from dev account `from` with `nonce`. */
function transfer(from: number, nonce: number, value: bigint): Promise<Hex> {
  return devAccount(from).signTransaction({
    chainId: 1337,
    type: "eip1559",
    nonce,
    to: devAccount(9).address,
    value,
    gas: 21_000n,
    maxFeePerGas: parseGwei("10"),
    maxPriorityFeePerGas: parseGwei("1"),
  });
}

/** Collects the notifications of one `eth_subscribe` over a WebSocket. */
async function subscribe(wsUrl: string, params: unknown[]): Promise<{ seen: unknown[]; close(): void }> {
  const ws = new WebSocket(wsUrl);
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  const seen: unknown[] = [];
  const subscribed = new Promise<string>((resolve) => {
    ws.on("message", (data) => {
      const message = JSON.parse(data.toString()) as {
        id?: number;
        result?: string;
        params?: { result: unknown };
      };
      if (message.id === 1) resolve(message.result!);
      else if (message.params) seen.push(message.params.result);
    });
  });
  ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params }));
  await subscribed;
  return { seen, close: () => ws.close() };
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("evm_snapshot, evm_revert and anvil_reset", () => {
  it("rewind the chain, its indexes, filters and subscriptions (viem, as Hardhat's fixtures use them)", () =>
    withNode({}, async (t) => {
      const { wallet, publicClient, testClient } = viemClients(t.url);
      const token = await deployToken(t.url);
      const me = devAccount(0).address;
      const them = devAccount(9).address;
      const filter = (await result(t.url, "eth_newFilter", [{ address: token }])) as Hex;
      const logs = await subscribe(t.wsUrl, ["logs", { address: token }]);
      const heads = await subscribe(t.wsUrl, ["newHeads"]);
      const before = {
        number: await blockNumber(t.url),
        balance: await publicClient.getBalance({ address: me }),
        nonce: await publicClient.getTransactionCount({ address: me }),
        tokens: await publicClient.readContract({
          address: token,
          abi: TestToken.abi,
          functionName: "balanceOf",
          args: [me],
        }),
      };

      const id = await testClient.snapshot();
      expect(id).toBe("0x1");
      const sent = await wallet.writeContract({
        address: token,
        abi: TestToken.abi,
        functionName: "transfer",
        args: [them, 5n],
      });
      const receipt = await publicClient.waitForTransactionReceipt({ hash: sent });
      const paid = await wallet.sendTransaction({ to: them, value: parseEther("1") });
      await publicClient.waitForTransactionReceipt({ hash: paid });
      expect(await blockNumber(t.url)).toBe(before.number + 2n);
      expect(await result(t.url, "eth_getFilterChanges", [filter])).toHaveLength(1);
      await until(() => logs.seen.length === 1, "the transfer's log");

      await testClient.revert({ id });
      expect(await blockNumber(t.url)).toBe(before.number);
      expect(await publicClient.getBalance({ address: me })).toBe(before.balance);
      expect(await publicClient.getTransactionCount({ address: me })).toBe(before.nonce);
      expect(
        await publicClient.readContract({
          address: token,
          abi: TestToken.abi,
          functionName: "balanceOf",
          args: [me],
        }),
      ).toBe(before.tokens);
      // Nothing of the dropped blocks is served any more: by number, by hash, by transaction, by log.
      expect(await result(t.url, "eth_getTransactionReceipt", [sent])).toBeNull();
      expect(await result(t.url, "eth_getTransactionByHash", [paid])).toBeNull();
      expect(await result(t.url, "eth_getBlockByNumber", [toHex(receipt.blockNumber), false])).toBeNull();
      expect(await result(t.url, "eth_getBlockByHash", [receipt.blockHash, false])).toBeNull();
      const remaining = await publicClient.getLogs({ address: token, fromBlock: 0n });
      expect(remaining.length).toBeGreaterThan(0);
      expect(remaining.filter((l) => l.transactionHash === sent)).toEqual([]);
      expect(
        await result(t.url, "ots_getTransactionBySenderAndNonce", [me, Number(before.nonce)]),
      ).toBeNull();
      // Filters and subscriptions see the transfer's log again, removed.
      const removed = (await result(t.url, "eth_getFilterChanges", [filter])) as RpcLog[];
      expect(removed.map((l) => [l.transactionHash, l.removed])).toEqual([[sent, true]]);
      await until(() => logs.seen.length === 2, "the removed log");
      expect(logs.seen[1]).toMatchObject({ transactionHash: sent, removed: true });
      logs.close();
      // newHeads subscribers learn of the head the chain went back to.
      await until(() => heads.seen.length === 3, "the head after the revert");
      expect(heads.seen[2]).toMatchObject({ number: toHex(before.number), hash: (await head(t.url)).hash });
      heads.close();
      // A snapshot is used once.
      expect(await result(t.url, "evm_revert", [id])).toBe(false);

      // New transactions are mined on top of the snapshot's head.
      const again = await wallet.sendTransaction({ to: them, value: 7n });
      const mined = await publicClient.waitForTransactionReceipt({ hash: again });
      expect(mined.blockNumber).toBe(before.number + 1n);
      expect(mined.status).toBe("success");
      expect(await publicClient.getTransactionCount({ address: me })).toBe(before.nonce + 1);
      expect((await head(t.url)).hash).toBe(mined.blockHash);
    }));

  it("nest: reverting to a snapshot invalidates it and every later one (ethers)", () =>
    withNode({}, async (t) => {
      const provider = new JsonRpcProvider(t.url, 1337, {
        staticNetwork: true,
        cacheTimeout: -1,
        pollingInterval: 20,
      });
      const signer = new Wallet(
        "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
        provider,
      );
      const to = devAccount(8).address;
      const balance = () => provider.getBalance(to);
      const start = await balance();
      const send = async (value: string) =>
        (await signer.sendTransaction({ to, value: ethersParseEther(value) })).wait();
      const first = (await provider.send("evm_snapshot", [])) as string;
      await send("1");
      const second = (await provider.send("evm_snapshot", [])) as string;
      await send("2");
      const third = (await provider.send("evm_snapshot", [])) as string;
      expect([first, second, third]).toEqual(["0x1", "0x2", "0x3"]);
      await send("4");
      expect(await balance()).toBe(start + ethersParseEther("7"));
      expect(await provider.send("evm_revert", [second])).toBe(true);
      expect(await balance()).toBe(start + ethersParseEther("1"));
      // The third was taken after the second: gone with it.
      expect(await provider.send("evm_revert", [third])).toBe(false);
      expect(await provider.send("evm_revert", [second])).toBe(false);
      // anvil's names, and a JSON number as id.
      await send("8");
      expect(await provider.send("anvil_revert", [1])).toBe(true);
      expect(await balance()).toBe(start);
      expect(await provider.send("anvil_snapshot", [])).toBe("0x4");
      provider.destroy();
    }));

  it("bring back the clock, the next timestamp, queued edits and the pool as they were", () =>
    withNode({ mining: { mode: "manual" } }, async (t) => {
      const url = t.url;
      const pending = async () =>
        BigInt(((await result(url, "eth_getBlockByNumber", ["pending", false])) as RpcBlock).timestamp);
      const who = "0x0d2026b3EE6eC71FC6746ADb6311F6d3Ba1C000B";
      await result(url, "evm_setNextBlockTimestamp", [4_000_000_000]);
      await result(url, "anvil_setBalance", [who, "0x1000"]);
      const waiting = (await result(url, "eth_sendRawTransaction", [await transfer(1, 0, 11n)])) as Hex;
      const id = (await result(url, "evm_snapshot")) as Hex;

      await result(url, "evm_mine", []);
      await result(url, "evm_increaseTime", [100_000]);
      await result(url, "anvil_setBalance", [who, "0x2000"]);
      const later = (await result(url, "eth_sendRawTransaction", [await transfer(1, 1, 12n)])) as Hex;
      await result(url, "evm_mine", []);
      expect(await result(url, "eth_getBalance", [who, "latest"])).toBe("0x2000");
      expect(await result(url, "eth_getTransactionReceipt", [later])).not.toBeNull();

      expect(await result(url, "evm_revert", [id])).toBe(true);
      // The timestamp set before the snapshot applies to the next block again.
      expect(await pending()).toBe(4_000_000_000n);
      // The edit queued before the snapshot is queued again; the later one is gone.
      expect(await result(url, "eth_getBalance", [who, "latest"])).toBe("0x0");
      expect(await result(url, "eth_getBalance", [who, "pending"])).toBe("0x1000");
      // The pool holds what it held: the first transfer pending, the later one unknown.
      expect(await result(url, "eth_getTransactionByHash", [waiting])).toMatchObject({ blockHash: null });
      expect(await result(url, "eth_getTransactionByHash", [later])).toBeNull();
      await result(url, "evm_mine", []);
      expect(await result(url, "eth_getTransactionReceipt", [waiting])).toMatchObject({ status: "0x1" });
      expect(BigInt((await head(url)).timestamp)).toBe(4_000_000_000n);

      // The clock reads again what it read at the snapshot: evm_increaseTime after it is undone.
      const id2 = (await result(url, "evm_snapshot")) as Hex;
      await result(url, "evm_increaseTime", [1_000_000]);
      expect(await pending()).toBeGreaterThan(4_000_900_000n);
      await result(url, "evm_revert", [id2]);
      expect(await pending()).toBeLessThan(4_000_000_100n);
    }));

  it("anvil_reset returns to genesis; a forking argument is refused", () =>
    withNode({}, async (t) => {
      const { publicClient, testClient, wallet } = viemClients(t.url);
      const genesisBalance = await publicClient.getBalance({ address: devAccount(0).address });
      await deployToken(t.url);
      await testClient.mine({ blocks: 3 });
      const id = await testClient.snapshot();
      await wallet.sendTransaction({ to: devAccount(9).address, value: 1n });
      expect(await blockNumber(t.url)).toBeGreaterThan(3n);

      // viem's reset() sends {forking: {blockNumber: null}}: no fork.
      await testClient.reset();
      expect(await blockNumber(t.url)).toBe(0n);
      expect(await publicClient.getBalance({ address: devAccount(0).address })).toBe(genesisBalance);
      expect(await result(t.url, "eth_getBlockByNumber", ["0x1", false])).toBeNull();
      expect(await result(t.url, "evm_revert", [id])).toBe(false);
      expect(await result(t.url, "evm_snapshot")).toBe("0x1");

      const refused = await rpc(t.url, "anvil_reset", [
        { forking: { jsonRpcUrl: "http://127.0.0.1:1", blockNumber: 5 } },
      ]);
      expect(refused.error?.code).toBe(-32602);
      expect(refused.error?.message).toMatch(/forking is not supported/);
      expect(
        (await rpc(t.url, "hardhat_reset", [{ forking: { jsonRpcUrl: "http://127.0.0.1:1" } }])).error?.code,
      ).toBe(-32602);

      // Blocks are mined from genesis again, and Hardhat's name answers true.
      await wallet.sendTransaction({ to: devAccount(9).address, value: 1n });
      await until(async () => (await blockNumber(t.url)) === 1n, "block 1");
      expect(await result(t.url, "hardhat_reset", [])).toBe(true);
      expect(await blockNumber(t.url)).toBe(0n);
    }));

  it("leave the store crash-safe: a restart after a revert serves the reverted chain", async () => {
    const datadir = mkdtempSync(join(tmpdir(), "strata-revert-"));
    try {
      let kept: RpcBlock;
      let dropped: RpcBlock;
      await withNode({ datadir, mining: { mode: "manual" } }, async (t) => {
        await result(t.url, "anvil_mine", [3]);
        kept = await head(t.url);
        const id = await result(t.url, "evm_snapshot");
        await result(t.url, "anvil_mine", [5]);
        dropped = await head(t.url);
        expect(await result(t.url, "evm_revert", [id])).toBe(true);
      });
      await withNode({ datadir, mining: { mode: "manual" } }, async (t) => {
        expect((await head(t.url)).hash).toBe(kept!.hash);
        expect(await result(t.url, "eth_getBlockByHash", [dropped!.hash, false])).toBeNull();
        await result(t.url, "evm_mine", []);
        expect(Number((await head(t.url)).number)).toBe(Number(kept!.number) + 1);
      });
    } finally {
      rmSync(datadir, { recursive: true, force: true });
    }
  });

  it("answer -32601 on other networks", () =>
    withNode({ network: "mainnet", mining: { mode: "manual" } }, async (t) => {
      for (const [method, params] of [
        ["evm_snapshot", []],
        ["anvil_snapshot", []],
        ["evm_revert", ["0x1"]],
        ["anvil_revert", ["0x1"]],
        ["anvil_reset", []],
        ["hardhat_reset", []],
      ] as const) {
        expect((await rpc(t.url, method, [...params])).error?.code, method).toBe(-32601);
      }
    }));
});
