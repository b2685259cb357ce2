import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStack, type TestStack } from "../../../../test/support/test-stack.js";
import { viemClients } from "../../../node/src/e2e/clients.js";
import { startTestNode } from "../../../node/src/testing/test-node.js";
import { call, entries, get, post, startGateway } from "./helpers.js";

let stack: TestStack;
let gateway: TestStack["gateway"];
let enterprise: Record<string, string>;

beforeAll(async () => {
  stack = await startTestStack({
    database: "postgres",
    indexer: false,
    gateway: { maxBodyBytes: 64 * 1024 },
  });
  gateway = stack.gateway;
  enterprise = { "X-API-Key": (await gateway.keys.create("enterprise")).key };
});

afterAll(async () => {
  await stack?.stop();
});

describe("JSON-RPC through the gateway", () => {
  it("proxies node methods on / and /rpc and works for viem, including a signed transaction", async () => {
    expect((await post(`${gateway.url}/`, call("net_version"), enterprise)).json.result).toBe("1337");
    const { publicClient, wallet } = viemClients(`${gateway.url}/rpc`);
    const to = "0x000000000000000000000000000000000000dEaD";
    const hash = await wallet.sendTransaction({ to, value: parseEther("1.5") });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(await publicClient.getBalance({ address: to })).toBe(parseEther("1.5"));
  });

  it("splits a batch between the gateway and the node and reassembles it in order with the client's ids", async () => {
    const body = JSON.stringify([
      call("eth_chainId", [], "a"),
      call("api_getBalance", ["0x000000000000000000000000000000000000dEaD"], 7),
      { jsonrpc: "2.0", method: "eth_blockNumber" },
      call("no_such_method", [], "BIG_ID"),
      { jsonrpc: "1.0", id: 3, method: "eth_chainId" },
      call("eth_getBalance", ["0x000000000000000000000000000000000000dEaD", "latest"], 7),
    ]).replace('"BIG_ID"', "9007199254740993");
    const answer = await post(`${gateway.url}/rpc`, body, enterprise);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('"id":9007199254740993');
    expect(entries(answer.json).map((r) => r.id)).toEqual(["a", 7, 9007199254740992, 3, 7]);
    expect(entries(answer.json)[0]!.result).toBe("0x539");
    expect(entries(answer.json)[1]!.result).toEqual({
      address: "0x000000000000000000000000000000000000dead",
      balance: "0x14d1120d7b160000",
      formatted: "1.5",
      symbol: "STRA",
      blockNumber: expect.stringMatching(/^0x[1-9a-f][0-9a-f]*$/),
    });
    expect(entries(answer.json)[2]!.error.code).toBe(-32601);
    expect(entries(answer.json)[3]!.error.code).toBe(-32600);
    expect(entries(answer.json)[4]!.result).toBe("0x14d1120d7b160000");
  });

  it("gives every concurrent single call its own answer under its own id", async () => {
    const addresses = Array.from({ length: 40 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, "0")}`);
    const answers = await Promise.all(
      addresses.map((address, i) =>
        post(
          `${gateway.url}/rpc`,
          JSON.stringify(
            call(i % 2 === 0 ? "eth_getBalance" : "eth_getTransactionCount", [address], "ID"),
          ).replace('"ID"', i % 3 === 0 ? `"s${i}"` : `9007199254740992${i}`),
          enterprise,
        ),
      ),
    );
    answers.forEach((answer, i) => {
      expect(answer.status).toBe(200);
      expect(answer.text).toContain(i % 3 === 0 ? `"id":"s${i}"` : `"id":9007199254740992${i}`);
      expect(answer.json.result).toBe("0x0");
    });
    const [balance, missing] = await Promise.all([
      post(
        `${gateway.url}/rpc`,
        // The last dev account: funded at genesis and never touched by these tests.
        call("eth_getBalance", ["0xa0Ee7A142d267C1f36714E4a8F75612F20a79720"], 1),
        enterprise,
      ),
      post(`${gateway.url}/rpc`, call("eth_getBalance", ["0x12"], 2), enterprise),
    ]);
    expect(balance.json).toEqual({ jsonrpc: "2.0", id: 1, result: "0x21e19e0c9bab2400000" });
    expect(missing.json.id).toBe(2);
    expect(missing.json.error.code).toBe(-32602);
  });

  it("serves api_getChainInfo and validates api_ params", async () => {
    const info = (await post(`${gateway.url}/rpc`, call("api_getChainInfo"), enterprise)).json.result;
    expect(info).toMatchObject({
      chainId: 1337,
      chainIdHex: "0x539",
      network: "dev",
      nativeCurrency: { name: "Strata", symbol: "STRA", decimals: 18 },
      syncing: false,
    });
    expect(info.blockNumber).toMatch(/^0x/);
    expect(info.blockHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(info.clientVersion).toMatch(/^Strata\//i);
    const bad = await post(`${gateway.url}/rpc`, call("api_getBalance", ["0x1234"]), enterprise);
    expect(bad.json.error.code).toBe(-32602);
    expect(bad.json.error.message).toMatch(/^invalid argument 0: /);
    const unknown = await post(`${gateway.url}/rpc`, call("api_nope"), enterprise);
    expect(unknown.json.error).toEqual({
      code: -32601,
      message: "the method api_nope does not exist/is not available",
    });
  });

  it("answers bad input with the statuses of the wire protocol and never crashes", async () => {
    const notJson = await post(`${gateway.url}/rpc`, "{nope", enterprise);
    expect(notJson.status).toBe(200);
    expect(notJson.json).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Parse error" },
    });
    const text = await fetch(`${gateway.url}/rpc`, {
      method: "POST",
      headers: { "content-type": "text/plain", ...enterprise },
      body: "{}",
    });
    expect(text.status).toBe(415);
    const big = await post(
      `${gateway.url}/rpc`,
      JSON.stringify(call("eth_chainId", ["x".repeat(70_000)])),
      enterprise,
    );
    expect(big.status).toBe(413);
    expect(big.json.error.code).toBe(-32600);
    expect((await get(`${gateway.url}/rpc`)).status).toBe(405);
    expect((await get(`${gateway.url}/nope`)).status).toBe(404);
    expect((await post(`${gateway.url}/rpc`, [], enterprise)).json.error.code).toBe(-32600);
    const onlyNotifications = await post(
      `${gateway.url}/rpc`,
      [{ jsonrpc: "2.0", method: "eth_chainId" }],
      enterprise,
    );
    expect(onlyNotifications.status).toBe(204);
    const preflight = await fetch(`${gateway.url}/rpc`, { method: "OPTIONS" });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("X-API-Key");
    expect((await post(`${gateway.url}/rpc`, call("eth_chainId"), enterprise)).json.result).toBe("0x539");
  });

  it("mounts the REST API under /v1 behind the same keys", async () => {
    expect((await get(`${gateway.url}/v1/blocks`, { "X-API-Key": "strata_wrong" })).status).toBe(401);
    const rest = await get(`${gateway.url}/v1/nothing-here`);
    expect(rest.status).toBe(404);
    expect(rest.headers.get("ratelimit-limit")).toBe("10");
  });

  it("reports health, liveness and Prometheus metrics", async () => {
    const health = await get(`${gateway.url}/health`);
    expect(health.status).toBe(200);
    expect(health.json).toMatchObject({
      status: "ok",
      chainId: 1337,
      version: "0.1.0",
      checks: { node: "ok", database: "ok", cache: "memory" },
    });
    expect(typeof health.json.blockNumber).toBe("number");
    expect((await get(`${gateway.url}/health/live`)).json).toEqual({ status: "ok" });
    const metrics = (await get(`${gateway.url}/metrics`)).text;
    expect(metrics).toMatch(
      /strata_gateway_requests_total\{method="eth_chainId",tier="enterprise",status="200"\} \d+/,
    );
    expect(metrics).toContain("strata_gateway_request_duration_seconds_bucket");
    expect(metrics).toMatch(
      /strata_gateway_limiter_decisions_total\{tier="enterprise",decision="allowed"\} \d+/,
    );
    expect(metrics).toMatch(/strata_gateway_upstream_up\{upstream="[^"]+"\} 1/);
  });
});

describe("health when the node is gone", () => {
  it("answers -32002 and 503 down when no upstream is reachable, and 200 on /health/live", async () => {
    const lone = await startTestNode();
    const g = await startGateway({ upstreams: [lone.url], port: 0, databaseUrl: stack.databaseUrl! });
    try {
      expect((await get(`${g.url}/health`)).status).toBe(200);
      await lone.stop();
      // A call the gateway must forward (head-cache answers stop once the subscription's close arrives).
      const answer = await post(`${g.url}/rpc`, call("eth_getBlockByNumber", ["latest", false], 5));
      expect(answer.status).toBe(200);
      expect(answer.json.id).toBe(5);
      expect(answer.json.error.code).toBe(-32002);
      const health = await get(`${g.url}/health`);
      expect(health.status).toBe(503);
      expect(health.json).toMatchObject({ status: "down", checks: { node: "down" } });
      expect((await get(`${g.url}/health/live`)).status).toBe(200);
    } finally {
      await g.stop();
    }
  });
});
