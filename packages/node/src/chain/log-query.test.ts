import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestToken } from "@strata/contracts";
import { encodeFunctionData, pad, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccount, rpc, viemClients } from "../e2e/clients.js";
import { startTestNode, type TestNode } from "../testing/test-node.js";

const TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const datadir = mkdtempSync(join(tmpdir(), "strata-logs-"));
let t: TestNode;
let tokenA: string;
let tokenB: string;
type Log = {
  address: string;
  topics: string[];
  blockNumber: string;
  logIndex: string;
  transactionIndex: string;
};

async function getLogs(filter: Record<string, unknown>) {
  return rpc(t.url, "eth_getLogs", [filter]);
}

const topicOf = (address: string) => pad(address as `0x${string}`, { size: 32 }).toLowerCase();

beforeAll(async () => {
  t = await startTestNode({ datadir, mining: { mode: "manual" }, rpc: { maxLogResults: 5 } });
  const { wallet } = viemClients(t.url);
  const deploy = async (name: string, nonce: number) => {
    const hash = await wallet.deployContract({
      abi: TestToken.abi,
      bytecode: TestToken.bytecode,
      args: [name, name, parseEther("1000")],
      nonce,
      gas: 2_000_000n,
    });
    await rpc(t.url, "evm_mine");
    return ((await rpc(t.url, "eth_getTransactionReceipt", [hash])).result as { contractAddress: string })
      .contractAddress;
  };
  tokenA = await deploy("A", 0);
  tokenB = await deploy("B", 1);
  await rpc(t.url, "anvil_mine", ["0x3"]);
  let nonce = 2;
  // Block 6: A -> dev3, B -> dev4; block 7: A -> dev4; blocks 8..9 empty; block 10: B -> dev3.
  const send = async (token: string, to: string) =>
    wallet.sendTransaction({
      to: token as `0x${string}`,
      nonce: nonce++,
      gas: 100_000n,
      data: encodeFunctionData({
        abi: TestToken.abi,
        functionName: "transfer",
        args: [to as `0x${string}`, 1n],
      }),
    });
  await send(tokenA, devAccount(3).address);
  await send(tokenB, devAccount(4).address);
  await rpc(t.url, "evm_mine");
  await send(tokenA, devAccount(4).address);
  await rpc(t.url, "evm_mine");
  await rpc(t.url, "anvil_mine", ["0x2"]);
  await send(tokenB, devAccount(3).address);
  await rpc(t.url, "evm_mine");
});
afterAll(async () => {
  await t.stop();
  rmSync(datadir, { recursive: true, force: true });
});

describe("eth_getLogs from the log index", () => {
  it("returns everything in block order with block-wide log indexes", async () => {
    const logs = (await getLogs({ fromBlock: "0x6", toBlock: "latest" })).result as Log[];
    expect(
      logs.map((l) => [
        Number(l.blockNumber),
        l.address.toLowerCase() === tokenA.toLowerCase() ? "A" : "B",
        l.logIndex,
      ]),
    ).toEqual([
      [6, "A", "0x0"],
      [6, "B", "0x1"],
      [7, "A", "0x0"],
      [10, "B", "0x0"],
    ]);
    expect(logs[1]!.transactionIndex).toBe("0x1");
  });

  it("filters by one address, several addresses, and topics with nulls and OR-lists", async () => {
    const byA = (await getLogs({ fromBlock: "0x0", address: tokenA })).result as Log[];
    expect(byA.map((l) => Number(l.blockNumber))).toEqual([1, 6, 7]);
    const both = (await getLogs({ fromBlock: "0x2", address: [tokenA, tokenB] })).result as Log[];
    expect(both.map((l) => Number(l.blockNumber))).toEqual([2, 6, 6, 7, 10]);
    const toDev3 = (
      await getLogs({ fromBlock: "0x0", topics: [TRANSFER, null, topicOf(devAccount(3).address)] })
    ).result as Log[];
    expect(toDev3.map((l) => Number(l.blockNumber))).toEqual([6, 10]);
    const toEither = (
      await getLogs({
        fromBlock: "0x3",
        topics: [null, null, [topicOf(devAccount(3).address), topicOf(devAccount(4).address)]],
      })
    ).result as Log[];
    expect(toEither.map((l) => Number(l.blockNumber))).toEqual([6, 6, 7, 10]);
    const anyInList = (await getLogs({ fromBlock: "0x3", topics: [[TRANSFER, null]] })).result as Log[];
    expect(anyInList).toHaveLength(4);
    const emptyTopics = (await getLogs({ fromBlock: "0x3", topics: [] })).result as Log[];
    expect(emptyTopics).toHaveLength(4);
    const nothing = (await getLogs({ fromBlock: "0x0", address: devAccount(9).address })).result;
    expect(nothing).toEqual([]);
    const wrongPosition = (await getLogs({ fromBlock: "0x0", topics: [topicOf(devAccount(3).address)] }))
      .result;
    expect(wrongPosition).toEqual([]);
  });

  it("honours the range and refuses ranges ending past the head, as geth", async () => {
    expect(
      ((await getLogs({ fromBlock: "0x7", toBlock: "0x9" })).result as Log[]).map((l) =>
        Number(l.blockNumber),
      ),
    ).toEqual([7]);
    expect((await getLogs({ fromBlock: "0x64", toBlock: "0x65" })).error).toEqual({
      code: -32602,
      message: "block range extends beyond current head block",
    });
    expect((await getLogs({ fromBlock: "0x5", toBlock: "0x4" })).error?.code).toBe(-32602);
  });

  it("refuses more logs than the limit with a range that would succeed", async () => {
    const tooMany = await getLogs({ fromBlock: "0x0", toBlock: "latest" });
    expect(tooMany.error).toMatchObject({ code: -32005, data: { fromBlock: "0x0", toBlock: "0x9" } });
    expect((await getLogs({ fromBlock: "0x0", toBlock: "0x9" })).result as Log[]).toHaveLength(5);
  });

  it("keeps the index across a restart", async () => {
    await t.stop();
    t = await startTestNode({ datadir, mining: { mode: "manual" }, rpc: { maxLogResults: 5 } });
    const byB = (await getLogs({ fromBlock: "0x0", address: tokenB })).result as Log[];
    expect(byB.map((l) => Number(l.blockNumber))).toEqual([2, 6, 10]);
  });
});
