import { parseGwei } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchDatabase } from "../../../../test/support/scratch-database.js";
import { startTestNode, type TestNode } from "../../../node/src/testing/test-node.js";
import type { Gateway } from "../gateway.js";
import { call, get, post, startGateway, WsClient } from "./helpers.js";

const SUBSCRIPTIONS_PER_CONNECTION = 3;
const QUEUE_BOUND = 256 * 1024;

let node: TestNode;
let database: Awaited<ReturnType<typeof scratchDatabase>>;
let gateway: Gateway;
let key: Record<string, string>;

beforeAll(async () => {
  node = await startTestNode({ mining: { mode: "manual" }, rpc: { maxTxBytes: 128 * 1024 } });
  database = await scratchDatabase();
  gateway = await startGateway({
    upstreams: [node.url],
    port: 0,
    databaseUrl: database.url,
    maxSubscriptionsPerConnection: SUBSCRIPTIONS_PER_CONNECTION,
    maxWsQueuedBytes: QUEUE_BOUND,
  });
  key = { "X-API-Key": (await gateway.keys.create("enterprise")).key };
});

afterAll(async () => {
  await gateway?.stop();
  await database?.drop();
  await node?.stop();
});

/** The gateway's `strata_cache_size` and `strata_cache_bound` of `cache`. */
async function cacheGauge(cache: string): Promise<{ size: number; bound: number }> {
  const text = (await get(`${gateway.url}/metrics`)).text;
  const value = (name: string) =>
    Number(
      text
        .split("\n")
        .find((line) => line.startsWith(`${name}{cache="${cache}"`))
        ?.split(" ")
        .at(-1),
    );
  return { size: value("strata_cache_size"), bound: value("strata_cache_bound") };
}

describe("gateway WebSocket limits", () => {
  it("holds at most its cap of subscriptions per connection when asked for more", async () => {
    const client = await WsClient.open(`${gateway.wsUrl}/ws`, key);
    try {
      // A batch asks for them all at once: the cap holds while the node's answers are on their way.
      const count = SUBSCRIPTIONS_PER_CONNECTION + 3;
      client.ws.send(
        JSON.stringify(Array.from({ length: count }, (_, i) => call("eth_subscribe", ["newHeads"], 100 + i))),
      );
      const answers = await waitForBatch(client, count);
      const ids = answers
        .filter((a) => typeof a.result === "string")
        .map((a) => a.result as unknown as string);
      const refused = answers.filter((a) => a.error !== undefined);
      expect(ids).toHaveLength(SUBSCRIPTIONS_PER_CONNECTION);
      expect(refused).toHaveLength(count - SUBSCRIPTIONS_PER_CONNECTION);
      for (const answer of refused)
        expect(answer.error).toEqual({
          code: -32005,
          message: "too many subscriptions on this connection",
          data: { limit: "subscriptionsPerConnection", max: SUBSCRIPTIONS_PER_CONNECTION },
        });
      expect((await client.call("eth_subscribe", ["newHeads"])).error?.code).toBe(-32005);
      expect(await cacheGauge("ws_subscriptions")).toEqual({
        size: SUBSCRIPTIONS_PER_CONNECTION,
        bound: SUBSCRIPTIONS_PER_CONNECTION * gateway.config.maxWsConnections,
      });
      // One place freed is one place taken again.
      expect((await client.call("eth_unsubscribe", [ids[0]])).result).toBe(true);
      expect(typeof (await client.call("eth_subscribe", ["newHeads"])).result).toBe("string");
      expect((await cacheGauge("ws_subscriptions")).size).toBe(SUBSCRIPTIONS_PER_CONNECTION);
    } finally {
      client.close();
    }
  });

  it("holds at most its cap of connections when more clients connect at once", async () => {
    const max = 3;
    const small = await startGateway({
      upstreams: [node.url],
      port: 0,
      databaseUrl: database.url,
      maxWsConnections: max,
    });
    try {
      // The key check of each upgrade is awaited: the cap must hold for upgrades accepted meanwhile.
      const attempts = await Promise.allSettled(
        Array.from({ length: 3 * max }, () => WsClient.open(`${small.wsUrl}/ws`, key)),
      );
      const opened = attempts.flatMap((a) => (a.status === "fulfilled" ? [a.value] : []));
      expect(opened).toHaveLength(max);
      for (const refused of attempts.filter((a) => a.status === "rejected"))
        expect(String(refused.reason)).toContain("503");
      const text = (await get(`${small.url}/metrics`)).text;
      expect(text).toContain(`strata_cache_size{cache="ws_connections",unit="entries"} ${max}`);
      expect(text).toContain(`strata_cache_bound{cache="ws_connections",unit="entries"} ${max}`);
      for (const client of opened) client.close();
    } finally {
      await small.stop();
    }
  });

  it("drops a client that stops reading before its queue passes the bound, without holding back one that reads", async () => {
    const slow = await WsClient.open(`${gateway.wsUrl}/ws`, key);
    const fast = await WsClient.open(`${gateway.wsUrl}/ws`, key);
    const subscription = (await fast.call("eth_subscribe", ["newPendingTransactions", true])).result;
    expect((await slow.call("eth_subscribe", ["newPendingTransactions", true])).error).toBeUndefined();
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    expect((await cacheGauge("ws_send_queue_bytes")).bound).toBe(QUEUE_BOUND);
    const sender = mnemonicToAccount("test test test test test test test test test test test junk", {
      addressIndex: 7,
    });
    const count = 60;
    for (let nonce = 0; nonce < count; nonce++) {
      const raw = await sender.signTransaction({
        chainId: 1337,
        type: "eip1559",
        nonce,
        to: "0x00000000000000000000000000000000000000bb",
        gas: 5_000_000n,
        maxFeePerGas: parseGwei("2"),
        maxPriorityFeePerGas: parseGwei("1"),
        data: `0x${"ab".repeat(100 * 1024)}`,
      });
      expect((await post(node.url, call("eth_sendRawTransaction", [raw]))).json.error).toBeUndefined();
      // Each notification carries 200 KB of data: the slow client's queue fills past the bound within a few.
      expect((await cacheGauge("ws_send_queue_bytes")).size).toBeLessThanOrEqual(QUEUE_BOUND);
    }
    const received = () => fast.notifications(String(subscription)).length;
    for (let i = 0; i < 500 && (received() < count || (await cacheGauge("ws_connections")).size > 1); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(received()).toBe(count);
    expect((await cacheGauge("ws_connections")).size).toBe(1);
    expect((await cacheGauge("ws_send_queue_bytes")).size).toBeLessThanOrEqual(QUEUE_BOUND);
    fast.close();
    slow.ws.terminate();
  });
});

/** Waits for the answer to a batch sent on `client` (the first message that is an array of `count`). */
async function waitForBatch(client: WsClient, count: number) {
  const batch = await client.waitFor((m) => Array.isArray(m) && m.length === count);
  return batch as unknown as { result?: unknown; error?: unknown }[];
}
