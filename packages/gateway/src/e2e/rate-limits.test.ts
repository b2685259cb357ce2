import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchDatabase } from "../../../../test/support/scratch-database.js";
import { startTestNode, type TestNode } from "../../../node/src/testing/test-node.js";
import type { Gateway } from "../gateway.js";
import {
  call,
  entries,
  get,
  ManualClock,
  post,
  REDIS_URL,
  redisPrefix,
  startGateway,
  WsClient,
} from "./helpers.js";

// A fixed instant in the middle of a UTC day; the clock only moves when a test moves it.
const clock = new ManualClock(Date.UTC(2026, 0, 15, 12, 0, 0, 250));
let node: TestNode;
let database: Awaited<ReturnType<typeof scratchDatabase>>;
let a: Gateway;
let b: Gateway;

beforeAll(async () => {
  node = await startTestNode();
  database = await scratchDatabase();
  const shared = {
    upstreams: [node.url],
    redisUrl: REDIS_URL,
    redisKeyPrefix: redisPrefix(),
    databaseUrl: database.url,
  };
  a = await startGateway({ ...shared, port: 0 }, { clock: clock.read });
  b = await startGateway({ ...shared, port: 0 }, { clock: clock.read });
});

afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await database?.drop();
  await node?.stop();
});

/** Moves the clock past every per-second window used so far. */
function nextSecond(): void {
  clock.advance(1_000);
}

describe("limits shared by two gateway instances on one Redis", () => {
  it("refuses the 11th keyless request in a second across both instances", async () => {
    nextSecond();
    for (let i = 0; i < 10; i++) {
      const answer = await post(`${(i % 2 === 0 ? a : b).url}/rpc`, call("eth_chainId", [], i));
      expect(answer.status).toBe(200);
      expect(answer.json.result).toBe("0x539");
      expect(answer.headers.get("ratelimit-limit")).toBe("10");
      expect(answer.headers.get("ratelimit-remaining")).toBe(String(9 - i));
      expect(answer.headers.get("ratelimit-reset")).toBe("1");
    }
    const refused = await post(`${b.url}/`, call("eth_chainId", [], 11));
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({
      jsonrpc: "2.0",
      id: 11,
      error: {
        code: -32005,
        message: "limit exceeded",
        data: { tier: "free", limit: 10, period: "second", retryAfterMs: 1000 },
      },
    });
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    nextSecond();
    expect((await post(`${a.url}/rpc`, call("eth_chainId"))).status).toBe(200);
  });

  it("gives a Developer key 50 calls a second, counted per key", async () => {
    const { key } = await a.keys.create("developer", "dev test");
    nextSecond();
    const headers = { "X-API-Key": key };
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        post(`${(i % 2 === 0 ? a : b).url}/rpc`, call("eth_blockNumber", [], i), headers),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(new Array(50).fill(200));
    expect(answers.every((r) => r.headers.get("ratelimit-limit") === "50")).toBe(true);
    const refused = await post(`${a.url}/rpc`, call("eth_blockNumber"), headers);
    expect(refused.status).toBe(429);
    expect(refused.json.error.data).toMatchObject({ tier: "developer", limit: 50, period: "second" });
    // A keyless caller from the same address has its own counter.
    expect((await post(`${a.url}/rpc`, call("eth_blockNumber"))).status).toBe(200);
  });

  it("counts a batch per entry and refuses a batch that does not fit as a whole", async () => {
    nextSecond();
    const batch = (n: number) => Array.from({ length: n }, (_, i) => call("eth_chainId", [], i));
    const six = await post(`${a.url}/rpc`, batch(6));
    expect(six.status).toBe(200);
    expect(six.json).toHaveLength(6);
    expect(six.headers.get("ratelimit-remaining")).toBe("4");
    const five = await post(`${b.url}/rpc`, batch(5));
    expect(five.status).toBe(429);
    expect(five.json.error.code).toBe(-32005);
    const four = await post(`${b.url}/rpc`, batch(4));
    expect(four.status).toBe(200);
    expect(entries(four.json).map((r) => r.id)).toEqual([0, 1, 2, 3]);
    expect(four.headers.get("ratelimit-remaining")).toBe("0");
  });

  it("refuses an unknown or revoked key with 401 and never downgrades it", async () => {
    // An unknown key costs one Free-tier call of the caller's IP.
    nextSecond();
    const unknown = await post(`${a.url}/rpc`, call("eth_chainId"), { "X-API-Key": "strata_not-a-key" });
    expect(unknown.status).toBe(401);
    expect(unknown.json.error).toEqual({ code: -32000, message: "invalid API key" });
    const created = await a.keys.create("enterprise");
    nextSecond();
    const ok = await post(`${b.url}/rpc`, call("eth_chainId"), { "X-API-Key": created.key });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("ratelimit-limit")).toBeNull();
    expect(await a.keys.revoke(created.id)).toBe(true);
    const revoked = await post(`${b.url}/rpc`, call("eth_chainId"), { "X-API-Key": created.key });
    expect(revoked.status).toBe(401);
    expect(revoked.json.error.message).toBe("invalid API key");
  });

  it("answers an over-limit WebSocket message with the limit error and keeps the socket open", async () => {
    nextSecond();
    // The upgrade counts as one call, the subscription as another.
    const client = await WsClient.open(`${a.wsUrl}/ws`);
    const sub = await client.call("eth_subscribe", ["newHeads"]);
    expect(sub.result).toMatch(/^0x[0-9a-f]{32}$/);
    for (let i = 0; i < 8; i++) expect((await client.call("eth_chainId")).result).toBe("0x539");
    const refused = await client.call("eth_chainId");
    expect(refused.error).toMatchObject({
      code: -32005,
      message: "limit exceeded",
      data: { tier: "free", period: "second" },
    });
    // Notifications still flow while the caller is at its limit, and do not count.
    for (let i = 0; i < 3; i++) await post(node.url, call("evm_mine"));
    await client.waitFor(() => client.notifications(String(sub.result)).length >= 3);
    expect(client.ws.readyState).toBe(client.ws.OPEN);
    nextSecond();
    expect((await client.call("eth_chainId")).result).toBe("0x539");
    client.close();
    // WebSocket calls are counted like HTTP ones, refusals with the status they would have had.
    const metrics = await (await fetch(`${a.url}/metrics`)).text();
    expect(metrics).toMatch(
      /strata_gateway_requests_total\{method="eth_subscribe",tier="free",status="200"\} [1-9]/,
    );
    expect(metrics).toMatch(
      /strata_gateway_requests_total\{method="eth_chainId",tier="free",status="429"\} [1-9]/,
    );
  });

  it("refuses a WebSocket upgrade with an invalid key", async () => {
    nextSecond();
    await expect(WsClient.open(`${a.wsUrl}/ws`, { "X-API-Key": "strata_bogus" })).rejects.toThrow(/401/);
  });
});

describe("Redis unreachable", () => {
  it("fails open by default, and refuses with 503 when configured to fail closed", async () => {
    const unreachable = "redis://127.0.0.1:19199";
    const base = { upstreams: [node.url], port: 0, redisUrl: unreachable, databaseUrl: database.url };
    const open = await startGateway(base);
    const closed = await startGateway({ ...base, limiterFailure: "closed" });
    try {
      const allowed = await post(`${open.url}/rpc`, call("eth_chainId"));
      expect(allowed.status).toBe(200);
      expect(allowed.json.result).toBe("0x539");
      const metrics = await (await fetch(`${open.url}/metrics`)).text();
      expect(metrics).toMatch(
        /strata_gateway_limiter_decisions_total\{tier="free",decision="failed_open"\} [1-9]/,
      );
      const refused = await post(`${closed.url}/rpc`, call("eth_chainId"));
      expect(refused.status).toBe(503);
      expect(refused.json.error).toEqual({ code: -32002, message: "rate limiter unavailable" });
      const health = (await get(`${open.url}/health`)).json;
      expect(health).toMatchObject({ checks: { cache: "down" } });
    } finally {
      await open.stop();
      await closed.stop();
    }
  });
});
