import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { keccak256, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchDatabase } from "../../../../test/support/scratch-database.js";
import { devAccount } from "../../../node/src/e2e/clients.js";
import { startTestNode, type TestNode } from "../../../node/src/testing/test-node.js";
import type { Gateway } from "../gateway.js";
import { call, get, type Json, post, startGateway, WsClient } from "./helpers.js";

let database: Awaited<ReturnType<typeof scratchDatabase>>;
const stops: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  database = await scratchDatabase();
});

afterAll(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  await database?.drop();
});

async function gatewayFor(upstreams: string[]): Promise<Gateway> {
  const gateway = await startGateway({ upstreams, port: 0, databaseUrl: database.url });
  stops.push(() => gateway.stop());
  return gateway;
}

async function node(overrides: Parameters<typeof startTestNode>[0] = {}): Promise<TestNode> {
  const started = await startTestNode(overrides);
  stops.push(() => started.stop());
  return started;
}

describe("failover between upstream nodes", () => {
  it("keeps answering every call when one of two nodes dies mid-traffic", async () => {
    const a = await node();
    const b = await node();
    const gateway = await gatewayFor([a.url, b.url]);
    const { key } = await gateway.keys.create("enterprise");
    const results: unknown[] = [];
    let stopped = false;
    const worker = async () => {
      for (let i = 0; i < 60; i++) {
        if (i === 20 && !stopped) {
          stopped = true;
          await a.stop();
        }
        const answer = await post(`${gateway.url}/rpc`, call("eth_chainId", [], i), { "X-API-Key": key });
        results.push(answer.json.result ?? answer.json.error);
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    expect(stopped).toBe(true);
    expect(results).toHaveLength(240);
    expect(results.every((r) => r === "0x539")).toBe(true);
    const health = (await get(`${gateway.url}/health`)).json;
    expect(health).toMatchObject({ status: "ok", upstreams: { healthy: 1, total: 2 } });
  });

  it("keeps a WebSocket subscription and its id when its node goes away, re-subscribing on another", async () => {
    const a = await node({ mining: { mode: "manual" } });
    const b = await node({ mining: { mode: "manual" } });
    const gateway = await gatewayFor([a.url, b.url]);
    const client = await WsClient.open(gateway.wsUrl);
    const id = String((await client.call("eth_subscribe", ["newHeads"])).result);
    await post(a.url, call("evm_mine"));
    await post(b.url, call("evm_mine"));
    const [first] = await waitForHeads(client, id, 1);
    const hashOn = async (n: TestNode) =>
      (await post(n.url, call("eth_getBlockByNumber", ["0x1", false]))).json.result.hash;
    const serving = String(first?.hash) === String(await hashOn(a)) ? a : b;
    const other = serving === a ? b : a;
    await serving.stop();
    // The gateway re-subscribes on the remaining node; keep mining there until heads arrive again.
    const before = client.notifications(id).length;
    for (let i = 0; i < 100 && client.notifications(id).length === before; i++) {
      await post(other.url, call("evm_mine"));
      await new Promise((r) => setTimeout(r, 100));
    }
    const heads = client.notifications(id);
    expect(heads.length).toBeGreaterThan(before);
    const latest = heads.at(-1)!;
    const onOther = (await post(other.url, call("eth_getBlockByNumber", [latest.number, false]))).json.result;
    expect(latest.hash).toBe(onOther.hash);
    expect((await client.call("eth_unsubscribe", [id])).result).toBe(true);
    client.close();
  });
});

describe("eth_sendRawTransaction", () => {
  it("is moved to another node only with care: an already known transaction counts as sent", async () => {
    const target = await node({ mining: { mode: "manual" } });
    let sabotaged = 0;
    // In front of the node: forwards every request, but drops the answer to transaction sends, so the
    // gateway cannot know whether the node received them.
    const flaky: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks);
        const forward = request(
          target.url,
          { method: "POST", headers: { "content-type": "application/json" } },
          (answer) => {
            const parts: Buffer[] = [];
            answer.on("data", (c: Buffer) => parts.push(c));
            answer.on("end", () => {
              if (body.includes("eth_sendRawTransaction")) {
                sabotaged++;
                res.socket?.destroy();
                return;
              }
              res.writeHead(answer.statusCode ?? 200, { "content-type": "application/json" });
              res.end(Buffer.concat(parts));
            });
          },
        );
        forward.end(body);
      });
    });
    await new Promise<void>((resolve) => flaky.listen(0, "127.0.0.1", resolve));
    stops.push(() => new Promise((resolve) => flaky.close(resolve)));
    const flakyUrl = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}`;
    const gateway = await gatewayFor([flakyUrl, target.url]);
    const account = devAccount(3);
    const raws = await Promise.all(
      [0, 1].map((nonce) =>
        account.signTransaction({
          chainId: 1337,
          type: "eip1559",
          to: "0x000000000000000000000000000000000000bEEF",
          value: parseEther("0.01"),
          nonce,
          gas: 21_000n,
          maxFeePerGas: 10_000_000_000n,
          maxPriorityFeePerGas: 1n,
        }),
      ),
    );
    // Two sends in a row start on different nodes, so one of them meets the flaky one first.
    for (const raw of raws) {
      const answer = await post(`${gateway.url}/rpc`, call("eth_sendRawTransaction", [raw]));
      expect(answer.json).toEqual({ jsonrpc: "2.0", id: 1, result: keccak256(raw) });
      const known = await post(target.url, call("eth_getTransactionByHash", [keccak256(raw)]));
      expect(known.json.result.hash).toBe(keccak256(raw));
    }
    expect(sabotaged).toBeGreaterThanOrEqual(1);
    // A plain error of the node is passed on, not retried into a success.
    const again = await post(`${target.url}`, call("eth_sendRawTransaction", [raws[0]]));
    expect(again.json.error.message).toBe("already known");
  });
});

async function waitForHeads(client: WsClient, id: string, count: number): Promise<Json[]> {
  await client.waitFor(() => client.notifications(id).length >= count);
  return client.notifications(id);
}
