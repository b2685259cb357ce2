import { TestToken } from "@strata/contracts";
import type { RpcLog } from "@strata/protocol";
import { type Address, type Hash, pad, parseAbiItem, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateMethodResult } from "../../conformance/schema-validator.js";
import { devAccount, rpc, viemClients } from "../../e2e/clients.js";
import { startTestNode, type TestNode } from "../../testing/test-node.js";

const TRANSFER = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");
const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

let t: TestNode;
let c: ReturnType<typeof viemClients>;
let tokenA: Address;
let tokenB: Address;
const alice = devAccount(3).address;
const bob = devAccount(4).address;
const carol = devAccount(5).address;

/** The result of a call that must succeed. */
async function call<T>(method: string, params: unknown[] = []): Promise<T> {
  const response = await rpc(t.url, method, params);
  if (response.error) throw new Error(`${method}: ${response.error.message}`);
  return response.result as T;
}

async function mine(): Promise<{ number: bigint; hash: Hash }> {
  await call("evm_mine");
  const block = await c.publicClient.getBlock();
  return { number: block.number, hash: block.hash };
}

async function deploy(symbol: string): Promise<Address> {
  const hash = await c.wallet.deployContract({
    abi: TestToken.abi,
    bytecode: TestToken.bytecode,
    args: [symbol, symbol, parseEther("1000000")],
  });
  await mine();
  const receipt = await c.publicClient.getTransactionReceipt({ hash });
  return receipt.contractAddress!;
}

function transfer(token: Address, to: Address, amount = 1n): Promise<Hash> {
  return c.wallet.writeContract({
    address: token,
    abi: TestToken.abi,
    functionName: "transfer",
    args: [to, amount],
  });
}

const topicOf = (address: Address) => pad(address.toLowerCase() as Address);

beforeAll(async () => {
  t = await startTestNode({ mining: { mode: "manual" } });
  c = viemClients(t.url);
  tokenA = await deploy("AAA");
  tokenB = await deploy("BBB");
});

afterAll(() => t.stop());

describe("filters through viem", () => {
  it("event filter: changes since the last poll, and the full query with getFilterLogs", async () => {
    const filter = await c.publicClient.createEventFilter({
      address: tokenA,
      event: TRANSFER,
      args: { to: bob },
      fromBlock: 0n,
    });
    expect(filter.id).toMatch(/^0x[0-9a-f]{32}$/);
    expect(await c.publicClient.getFilterChanges({ filter })).toEqual([]);

    await transfer(tokenA, bob, 7n);
    await transfer(tokenA, carol, 8n);
    await transfer(tokenB, bob, 9n);
    const block = await mine();

    const changes = await c.publicClient.getFilterChanges({ filter });
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      address: tokenA,
      blockNumber: block.number,
      blockHash: block.hash,
      removed: false,
      args: { from: c.wallet.account.address, to: bob, value: 7n },
    });
    expect(await c.publicClient.getFilterChanges({ filter })).toEqual([]);

    await transfer(tokenA, bob, 10n);
    await mine();
    const next = await c.publicClient.getFilterChanges({ filter });
    expect(next.map((l) => l.args.value)).toEqual([10n]);

    const all = await c.publicClient.getFilterLogs({ filter });
    expect(all.map((l) => l.args.value)).toEqual([7n, 10n]);
    expect(await c.publicClient.uninstallFilter({ filter })).toBe(true);
    expect(await c.publicClient.uninstallFilter({ filter })).toBe(false);
  });

  it("block filter: the hashes of new blocks, in order", async () => {
    const filter = await c.publicClient.createBlockFilter();
    const first = await mine();
    const second = await mine();
    expect(await c.publicClient.getFilterChanges({ filter })).toEqual([first.hash, second.hash]);
    expect(await c.publicClient.getFilterChanges({ filter })).toEqual([]);
    await c.publicClient.uninstallFilter({ filter });
  });

  it("pending-transaction filter: the hashes of transactions entering the pool", async () => {
    const filter = await c.publicClient.createPendingTransactionFilter();
    const first = await transfer(tokenA, alice);
    const second = await transfer(tokenB, alice);
    expect(await c.publicClient.getFilterChanges({ filter })).toEqual([first, second]);
    await mine();
    expect(await c.publicClient.getFilterChanges({ filter })).toEqual([]);
    await c.publicClient.uninstallFilter({ filter });
  });

  it("an uninstalled filter is not found any more", async () => {
    const filter = await c.publicClient.createBlockFilter();
    await c.publicClient.uninstallFilter({ filter });
    await expect(c.publicClient.getFilterChanges({ filter })).rejects.toThrow(/filter not found/);
  });
});

describe("filters over raw JSON-RPC", () => {
  it("answers geth's -32000 'filter not found' for unknown ids and false on uninstall", async () => {
    const unknown = `0x${"ab".repeat(16)}`;
    for (const method of ["eth_getFilterChanges", "eth_getFilterLogs"]) {
      expect((await rpc(t.url, method, [unknown])).error).toEqual({
        code: -32000,
        message: "filter not found",
      });
    }
    expect((await rpc(t.url, "eth_uninstallFilter", [unknown])).result).toBe(false);
    expect((await rpc(t.url, "eth_getFilterChanges", [12])).error?.code).toBe(-32602);
    expect((await rpc(t.url, "eth_getFilterChanges", [])).error?.code).toBe(-32602);
  });

  it("eth_getFilterLogs is only valid for log filters", async () => {
    for (const method of ["eth_newBlockFilter", "eth_newPendingTransactionFilter"]) {
      const id = await call<string>(method);
      expect((await rpc(t.url, "eth_getFilterLogs", [id])).error).toEqual({
        code: -32000,
        message: "filter not found",
      });
      expect(await call("eth_getFilterChanges", [id])).toEqual([]);
      expect(await call("eth_uninstallFilter", [id])).toBe(true);
    }
  });

  it("log filters match exactly what eth_getLogs returns for the same block", async () => {
    const criteria = [
      { address: tokenA },
      { address: [tokenA, tokenB] },
      { address: [tokenB] },
      { topics: [TRANSFER_TOPIC, null, [topicOf(bob), topicOf(carol)]] },
      { topics: [null, null, topicOf(alice)] },
      { address: [tokenA, tokenB], topics: [[TRANSFER_TOPIC], [topicOf(c.wallet.account.address)]] },
      { topics: [`0x${"00".repeat(32)}`] },
    ];
    const ids = await Promise.all(criteria.map((f) => call<string>("eth_newFilter", [f])));
    await transfer(tokenA, alice, 1n);
    await transfer(tokenB, bob, 2n);
    await transfer(tokenA, carol, 3n);
    await transfer(tokenB, alice, 4n);
    const block = await mine();
    for (const [i, f] of criteria.entries()) {
      const changes = await call<RpcLog[]>("eth_getFilterChanges", [ids[i]]);
      const expected = await call<RpcLog[]>("eth_getLogs", [{ ...f, blockHash: block.hash }]);
      expect(changes, JSON.stringify(f)).toEqual(expected);
    }
    const everything = await call<RpcLog[]>("eth_getLogs", [{ blockHash: block.hash }]);
    expect(everything.map((l) => l.logIndex)).toEqual(["0x0", "0x1", "0x2", "0x3"]);
    expect(everything.every((l) => l.removed === false)).toBe(true);
    const orList = await call<RpcLog[]>("eth_getLogs", [{ ...criteria[3], blockHash: block.hash }]);
    expect(orList.map((l) => l.logIndex)).toEqual(["0x1", "0x2"]);
    const none = await call<RpcLog[]>("eth_getFilterChanges", [ids[6]]);
    expect(none).toEqual([]);
  });

  it("a toBlock in the past collects nothing new; getFilterLogs still answers its range", async () => {
    const head = await c.publicClient.getBlockNumber();
    const range = { fromBlock: "0x1", toBlock: "0x2" };
    const id = await call<string>("eth_newFilter", [range]);
    await transfer(tokenA, alice);
    await mine();
    expect(await call("eth_getFilterChanges", [id])).toEqual([]);
    const logs = await call<RpcLog[]>("eth_getFilterLogs", [id]);
    expect(logs.map((l) => l.address)).toEqual([tokenA.toLowerCase(), tokenB.toLowerCase()]);
    expect(logs).toEqual(await call("eth_getLogs", [range]));

    const past = await rpc(t.url, "eth_newFilter", [{ toBlock: `0x${(head - 1n).toString(16)}` }]);
    expect(past.error).toEqual({
      code: -32602,
      message: "invalid argument 0: invalid from and to block combination",
    });
    const both = await rpc(t.url, "eth_newFilter", [{ fromBlock: "0x1", blockHash: `0x${"11".repeat(32)}` }]);
    expect(both.error?.code).toBe(-32602);
  });

  it("a numeric toBlock ahead of the head stops collecting past it", async () => {
    // Asked of the node itself: viem's getBlockNumber may answer from its cache, a block behind.
    const head = BigInt(await call<string>("eth_blockNumber"));
    const id = await call<string>("eth_newFilter", [{ toBlock: `0x${(head + 1n).toString(16)}` }]);
    await transfer(tokenA, alice);
    const included = await mine();
    await transfer(tokenA, alice);
    await mine();
    const logs = await call<RpcLog[]>("eth_getFilterChanges", [id]);
    expect(logs.map((l) => l.blockHash)).toEqual([included.hash]);
  });

  it("a blockHash filter re-runs over that block", async () => {
    await transfer(tokenB, carol);
    const block = await mine();
    const id = await call<string>("eth_newFilter", [{ blockHash: block.hash, address: tokenB }]);
    const logs = await call<RpcLog[]>("eth_getFilterLogs", [id]);
    expect(logs).toHaveLength(1);
    expect(logs[0]?.blockHash).toBe(block.hash);
  });

  it("full pending transactions on request", async () => {
    const id = await call<string>("eth_newPendingTransactionFilter", [true]);
    const hash = await transfer(tokenA, alice);
    const [tx] = await call<{ hash: string; from: string; blockHash: null }[]>("eth_getFilterChanges", [id]);
    expect(tx).toMatchObject({ hash, from: c.wallet.account.address.toLowerCase(), blockHash: null });
    await mine();
  });
});

describe("eth_getFilterLogs limits", () => {
  let small: TestNode;

  beforeAll(async () => {
    small = await startTestNode({ mining: { mode: "manual" }, rpc: { maxLogRange: 2 } });
    for (let i = 0; i < 4; i++) await rpc(small.url, "evm_mine");
  });

  afterAll(() => small.stop());

  it("answers -32005 with a range that would succeed, as eth_getLogs does", async () => {
    const { result: id } = await rpc(small.url, "eth_newFilter", [{ fromBlock: "0x0" }]);
    const response = await rpc(small.url, "eth_getFilterLogs", [id]);
    expect(response.error).toEqual({
      code: -32005,
      message: "block range exceeds the limit of 2 blocks",
      data: { fromBlock: "0x0", toBlock: "0x1" },
    });
    expect(response.error).toEqual((await rpc(small.url, "eth_getLogs", [{ fromBlock: "0x0" }])).error);
  });
});

describe("execution-apis result schemas of the filter methods", () => {
  it("ids are quantities; changes and logs are hash or log arrays", async () => {
    const conforms = async (method: string, params: unknown[] = []): Promise<unknown> => {
      const result = await call<unknown>(method, params);
      expect(validateMethodResult(method, result), `${method} ${JSON.stringify(result)}`).toEqual([]);
      return result;
    };
    const ids: unknown[] = [];
    for (let i = 0; i < 20; i++) ids.push(await conforms("eth_newBlockFilter"));
    const pending = await conforms("eth_newPendingTransactionFilter");
    const logs = await conforms("eth_newFilter", [{ fromBlock: "0x0", address: tokenA }]);
    await transfer(tokenA, alice);
    await mine();
    // An empty array matches both branches of the spec's oneOf and so fails it: poll non-empty ones.
    await conforms("eth_getFilterChanges", [ids[0]]);
    await conforms("eth_getFilterChanges", [pending]);
    await conforms("eth_getFilterChanges", [logs]);
    await conforms("eth_getFilterLogs", [logs]);
    for (const id of [...ids, pending, logs]) expect(await conforms("eth_uninstallFilter", [id])).toBe(true);
  });
});
