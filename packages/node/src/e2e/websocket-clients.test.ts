import { TestToken } from "@strata/contracts";
import { Contract, WebSocketProvider } from "ethers";
import { createPublicClient, parseEther, webSocket } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestNode, type TestNode } from "../testing/test-node.js";
import { devAccount, devChain, viemClients } from "./clients.js";

let t: TestNode;
let token: `0x${string}`;

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

beforeAll(async () => {
  t = await startTestNode();
  const { wallet, publicClient } = viemClients(t.url);
  const hash = await wallet.deployContract({
    abi: TestToken.abi,
    bytecode: TestToken.bytecode,
    args: ["Live", "LIV", parseEther("1000")],
  });
  token = (await publicClient.waitForTransactionReceipt({ hash })).contractAddress!;
});
afterAll(() => t.stop());

async function transfer(to: `0x${string}`, amount: bigint): Promise<`0x${string}`> {
  const { wallet, publicClient } = viemClients(t.url);
  const hash = await wallet.writeContract({
    address: token,
    abi: TestToken.abi,
    functionName: "transfer",
    args: [to, amount],
  });
  await publicClient.waitForTransactionReceipt({ hash });
  return hash;
}

describe("client libraries over WebSocket", () => {
  it("viem watchBlocks and watchContractEvent receive every new block and Transfer", async () => {
    const client = createPublicClient({ chain: devChain(t.url), transport: webSocket(t.wsUrl) });
    const blocks: bigint[] = [];
    const transfers: { to: string; value: bigint }[] = [];
    const stopBlocks = client.watchBlocks({ onBlock: (block) => blocks.push(block.number) });
    const stopEvents = client.watchContractEvent({
      address: token,
      abi: TestToken.abi,
      eventName: "Transfer",
      onLogs: (logs) => {
        for (const log of logs) transfers.push({ to: log.args.to!, value: log.args.value! });
      },
    });
    await new Promise((r) => setTimeout(r, 100));
    const recipients = [devAccount(3).address, devAccount(4).address, devAccount(5).address];
    for (const [i, to] of recipients.entries()) await transfer(to, BigInt(i + 1));
    await until(() => transfers.length === 3 && blocks.length >= 3);
    expect(transfers).toEqual(recipients.map((to, i) => ({ to, value: BigInt(i + 1) })));
    for (let i = 1; i < blocks.length; i++) expect(blocks[i]).toBe(blocks[i - 1]! + 1n);
    stopBlocks();
    stopEvents();
    await client.transport.getRpcClient().then((rpc) => rpc.close());
  });

  it("ethers WebSocketProvider emits blocks and contract events", async () => {
    const provider = new WebSocketProvider(t.wsUrl, 1337);
    const blocks: number[] = [];
    const transfers: string[] = [];
    await provider.on("block", (n: number) => blocks.push(n));
    const contract = new Contract(token, TestToken.abi, provider);
    await contract.on("Transfer", (_from: string, to: string) => transfers.push(to));
    await new Promise((r) => setTimeout(r, 200));
    const to = devAccount(6).address;
    await transfer(to, 7n);
    await transfer(to, 8n);
    await until(() => transfers.length === 2 && blocks.length >= 2);
    expect(transfers).toEqual([to, to]);
    expect(blocks[blocks.length - 1]).toBe(Number(await viemClients(t.url).publicClient.getBlockNumber()));
    expect(await provider.getBlockNumber()).toBe(blocks[blocks.length - 1]);
    await provider.destroy();
  });
});
