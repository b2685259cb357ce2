import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchDatabase } from "../../../../test/support/scratch-database.js";
import { startTestNode, type TestNode } from "../../../node/src/testing/test-node.js";
import type { Gateway } from "../gateway.js";
import { call, entries, post, startGateway } from "./helpers.js";

/** Longest a bounded wait polls before the test fails. */
const WAIT_MS = 15_000;

/** Polls `read` until it returns something `done` accepts; fails after {@link WAIT_MS}. */
async function waitUntil<T>(read: () => Promise<T> | T, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met; last value ${String(value)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

let database: Awaited<ReturnType<typeof scratchDatabase>>;

beforeAll(async () => {
  database = await scratchDatabase();
});

afterAll(async () => {
  await database?.drop();
});

describe("head cache", () => {
  let node: TestNode;
  let gateway: Gateway;
  let key: Record<string, string>;

  beforeAll(async () => {
    node = await startTestNode();
    gateway = await startGateway({ upstreams: [node.url], port: 0, databaseUrl: database.url });
    key = { "X-API-Key": (await gateway.keys.create("enterprise")).key };
  });

  afterAll(async () => {
    await gateway?.stop();
    await node?.stop();
  });

  const nodeHead = async () =>
    (await post(node.url, call("eth_blockNumber"))).json.result as unknown as string;
  const gatewayHead = async () =>
    (await post(`${gateway.url}/rpc`, call("eth_blockNumber"), key)).json.result as unknown as string;

  it("answers eth_blockNumber from the cache and follows the node's head after every block", async () => {
    await waitUntil(
      () => gateway.heads.live,
      (live) => live,
    );
    expect(await gatewayHead()).toBe(await nodeHead());
    const answeredBefore = (await gateway.metrics.headCacheAnswers.get()).values[0]?.value ?? 0;
    for (let i = 0; i < 3; i++) {
      await post(node.url, call("evm_mine"));
      const head = await nodeHead();
      await waitUntil(gatewayHead, (answer) => answer === head);
    }
    const answeredAfter = (await gateway.metrics.headCacheAnswers.get()).values[0]?.value ?? 0;
    expect(answeredAfter).toBeGreaterThan(answeredBefore);
  });

  it("echoes every id exactly, in single calls and batches, and answers notifications with nothing", async () => {
    await waitUntil(
      () => gateway.heads.live,
      (live) => live,
    );
    const head = await nodeHead();
    const big = await post(
      `${gateway.url}/rpc`,
      '{"jsonrpc":"2.0","id":9007199254740993,"method":"eth_blockNumber"}',
      key,
    );
    expect(big.text).toBe(`{"jsonrpc":"2.0","id":9007199254740993,"result":"${head}"}`);
    const text = await post(`${gateway.url}/rpc`, call("eth_chainId", [], "chain-Ω"), key);
    expect(text.json.id).toBe("chain-Ω");
    expect(text.json.result).toBe("0x539");
    const nullId = await post(
      `${gateway.url}/rpc`,
      '{"jsonrpc":"2.0","id":null,"method":"net_version","params":[]}',
      key,
    );
    expect(nullId.text).toBe('{"jsonrpc":"2.0","id":null,"result":"1337"}');
    const notification = await post(`${gateway.url}/rpc`, { jsonrpc: "2.0", method: "eth_blockNumber" }, key);
    expect(notification.status).toBe(204);
    const batch = await post(
      `${gateway.url}/rpc`,
      JSON.stringify([
        call("eth_blockNumber", [], "x"),
        { jsonrpc: "2.0", method: "eth_chainId" },
        call("eth_blockNumber", [], 2.5),
      ]),
      key,
    );
    expect(entries(batch.json).map((a) => [a.id, a.result])).toEqual([
      ["x", head],
      [2.5, head],
    ]);
  });

  it("proxies calls with parameters and still counts every cached call against the limits", async () => {
    const withParams = await post(`${gateway.url}/rpc`, call("eth_chainId", ["extra"]), key);
    expect(withParams.json.error).toBeDefined();
    const free = await gateway.keys.create("free");
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++)
      statuses.push(
        (await post(`${gateway.url}/rpc`, call("eth_blockNumber"), { "X-API-Key": free.key })).status,
      );
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
  });

  it("holds at most one answer per head method when asked for more methods than it covers", async () => {
    await waitUntil(
      () => gateway.heads.live,
      (live) => live,
    );
    const { answers } = gateway.heads;
    const covered = [
      "eth_blockNumber",
      "eth_chainId",
      "net_version",
      "eth_gasPrice",
      "eth_maxPriorityFeePerGas",
      "eth_blobBaseFee",
    ];
    expect(answers.bound).toBe(covered.length);
    const uncovered = ["web3_clientVersion", "eth_syncing", "net_listening", "eth_accounts", "eth_coinbase"];
    const ask = async () => {
      for (const method of [...covered, ...uncovered]) {
        const answer = await post(`${gateway.url}/rpc`, call(method), key);
        expect(answer.json.error, method).toBeUndefined();
        expect(answers.size()).toBeLessThanOrEqual(answers.bound);
      }
    };
    await ask();
    // Each covered method is fetched on its first miss; once all are held the cache is full.
    await waitUntil(
      async () => {
        await ask();
        return answers.size();
      },
      (size) => size === answers.bound,
    );
    await ask();
    expect(answers.size()).toBe(answers.bound);
  });

  it("stops answering from the cache once the node is gone", async () => {
    await waitUntil(
      () => gateway.heads.live,
      (live) => live,
    );
    await node.stop();
    await waitUntil(
      () => gateway.heads.live,
      (live) => !live,
    );
    const answer = await post(`${gateway.url}/rpc`, call("eth_blockNumber"), key);
    expect(answer.json.result).toBeUndefined();
    expect(answer.json.error?.code).toBe(-32002);
  });
});

describe("without a head subscription", () => {
  let node: TestNode;
  let gateway: Gateway;

  beforeAll(async () => {
    // The node refuses every WebSocket: the gateway cannot subscribe and proxies head reads.
    node = await startTestNode({ rpc: { maxWsConnections: 0 } });
    gateway = await startGateway({ upstreams: [node.url], port: 0, databaseUrl: database.url });
  });

  afterAll(async () => {
    await gateway?.stop();
    await node?.stop();
  });

  it("proxies eth_blockNumber, which reflects a new block at once", async () => {
    for (let i = 0; i < 3; i++) {
      await post(node.url, call("evm_mine"));
      const head = (await post(node.url, call("eth_blockNumber"))).json.result;
      const through = await post(`${gateway.url}/rpc`, call("eth_blockNumber", [], "id-1"));
      expect(through.json.result).toBe(head);
      expect(through.json.id).toBe("id-1");
    }
    expect(gateway.heads.live).toBe(false);
    expect((await gateway.metrics.headCacheAnswers.get()).values[0]?.value ?? 0).toBe(0);
  });
});
