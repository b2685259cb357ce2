import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiKeyStore } from "@strata/gateway";
import { createLogger, createNode, type StrataNode, testConfig } from "@strata/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type ScratchDatabase, scratchDatabase } from "../../../../test/support/scratch-database.js";
import { parseFlags } from "../flags.js";
import { NODE_FLAGS, NODE_HELP } from "./node.js";
import { type NodeAccess, nodeAccessFromFlags, openNodeAccess } from "./node-access.js";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

// A fixed instant in the middle of a UTC day; the limiter's clock only moves when a test moves it.
let now = Date.UTC(2026, 0, 15, 12, 0, 0, 250);
const clock = () => now;
/** Moves the clock past every per-second window used so far. */
const nextSecond = () => {
  now += 1_000;
};

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers are read loosely in assertions.
  readonly json: any;
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    json: text === "" ? undefined : JSON.parse(text),
  };
}

const call = (method: string, id: number | string = 1, params: unknown[] = []) => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});
const batch = (n: number) => Array.from({ length: n }, (_, i) => call("eth_chainId", i));

/** A WebSocket JSON-RPC client that keeps every message it receives. */
class WsClient {
  // biome-ignore lint/suspicious/noExplicitAny: JSON messages are read loosely in assertions.
  readonly messages: any[] = [];
  private nextId = 1;

  constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => this.messages.push(JSON.parse(String(data))));
  }

  static async open(url: string): Promise<WsClient> {
    const ws = new WebSocket(url);
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    return new WsClient(ws);
  }

  send(body: unknown): void {
    this.ws.send(JSON.stringify(body));
  }

  // biome-ignore lint/suspicious/noExplicitAny: see above.
  async call(method: string, params: unknown[] = []): Promise<any> {
    const id = this.nextId++;
    this.send(call(method, id, params));
    return this.waitFor((m) => m.id === id);
  }

  // biome-ignore lint/suspicious/noExplicitAny: see above.
  async waitFor(predicate: (m: any) => boolean): Promise<any> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const found = this.messages.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error("timed out waiting for a message");
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

/** The status and body of a WebSocket upgrade the server refused. */
function refusedUpgrade(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once("open", () => {
      ws.close();
      reject(new Error("the upgrade was accepted"));
    });
    ws.once("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => {
        body += chunk.toString("utf8");
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once("error", () => undefined);
  });
}

describe("a node started with --api-keys", () => {
  let keysDb: ScratchDatabase;
  let keyStore: ApiKeyStore;
  let access: NodeAccess;
  let node: StrataNode;

  beforeAll(async () => {
    keysDb = await scratchDatabase();
    const settings = nodeAccessFromFlags(
      parseFlags(["--api-keys", "--database-url", keysDb.url, "--redis-url", REDIS_URL], NODE_FLAGS, {
        env: {},
      }),
      {},
    );
    expect(settings).toBeDefined();
    const prefix = `strata-test:${randomBytes(6).toString("hex")}`;
    access = await openNodeAccess({ ...settings!, redisKeyPrefix: prefix }, () => undefined, clock);
    expect(access.limiterKind).toBe("redis");
    keyStore = new ApiKeyStore(keysDb.db);
    const config = testConfig({ mining: { mode: "manual" } });
    node = await createNode(config, createLogger("silent"), { gate: access.gate });
    await node.start();
  });

  afterAll(async () => {
    await node?.stop();
    await access?.close();
    await keysDb?.drop();
  });

  it("limits keyless requests to 10 a second per IP, with RateLimit-* headers", async () => {
    nextSecond();
    for (let i = 0; i < 10; i++) {
      const answer = await post(node.rpcUrl, call("eth_chainId", i));
      expect(answer.status).toBe(200);
      expect(answer.json.result).toBe("0x539");
      expect(answer.headers.get("ratelimit-limit")).toBe("10");
      expect(answer.headers.get("ratelimit-remaining")).toBe(String(9 - i));
    }
    const refused = await post(node.rpcUrl, call("eth_chainId", 11));
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
    expect((await post(node.rpcUrl, call("eth_chainId"))).status).toBe(200);
  });

  it("gives a Developer key 50 calls a second, counted apart from keyless calls", async () => {
    const { key } = await keyStore.create("developer", "node test");
    nextSecond();
    const headers = { "X-API-Key": key };
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => post(node.rpcUrl, call("eth_blockNumber", i), headers)),
    );
    expect(answers.map((a) => a.status)).toEqual(new Array(50).fill(200));
    expect(answers.every((a) => a.headers.get("ratelimit-limit") === "50")).toBe(true);
    const refused = await post(node.rpcUrl, call("eth_blockNumber"), headers);
    expect(refused.status).toBe(429);
    expect(refused.json.error.data).toMatchObject({ tier: "developer", limit: 50, period: "second" });
    // The key also works as ?apiKey=, on the same counter.
    expect((await post(`${node.rpcUrl}/?apiKey=${key}`, call("eth_chainId"))).status).toBe(429);
    expect((await post(node.rpcUrl, call("eth_blockNumber"))).status).toBe(200);
  });

  it("refuses an unknown or revoked key with 401, over HTTP and at the WebSocket upgrade", async () => {
    const unknown = await post(node.rpcUrl, call("eth_chainId", 7), { "X-API-Key": "strata_not-a-key" });
    expect(unknown.status).toBe(401);
    expect(unknown.json).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32000, message: "invalid API key" },
    });
    const revokedKey = await keyStore.create("enterprise");
    await keyStore.revoke(revokedKey.id);
    const revoked = await post(node.rpcUrl, call("eth_chainId"), { "X-API-Key": revokedKey.key });
    expect(revoked.status).toBe(401);

    const upgrade = await refusedUpgrade(node.wsUrl, { "X-API-Key": "strata_not-a-key" });
    expect(upgrade.status).toBe(401);
    expect(JSON.parse(upgrade.body).error).toEqual({ code: -32000, message: "invalid API key" });
    expect((await refusedUpgrade(`${node.wsUrl}/?apiKey=${revokedKey.key}`)).status).toBe(401);

    const enterprise = await keyStore.create("enterprise");
    const ok = await post(node.rpcUrl, call("eth_chainId"), { "X-API-Key": enterprise.key });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("ratelimit-limit")).toBeNull();
  });

  it("counts a batch per entry and refuses a batch that does not fit as a whole", async () => {
    nextSecond();
    const six = await post(node.rpcUrl, batch(6));
    expect(six.status).toBe(200);
    expect(six.json).toHaveLength(6);
    expect(six.headers.get("ratelimit-remaining")).toBe("4");
    const five = await post(node.rpcUrl, batch(5));
    expect(five.status).toBe(429);
    expect(five.json.error.code).toBe(-32005);
    const four = await post(node.rpcUrl, batch(4));
    expect(four.status).toBe(200);
    expect(four.json.map((r: { id: number }) => r.id)).toEqual([0, 1, 2, 3]);
    expect(four.headers.get("ratelimit-remaining")).toBe("0");
    // A WebSocket upgrade is a call too: with the second used up, no socket.
    const upgrade = await refusedUpgrade(node.wsUrl);
    expect(upgrade.status).toBe(429);
    expect(JSON.parse(upgrade.body).error).toMatchObject({ code: -32005, message: "limit exceeded" });
  });

  it("answers an over-limit WebSocket message with the limit error and keeps the socket open", async () => {
    nextSecond();
    // The upgrade counts as one call, the subscription as another.
    const client = await WsClient.open(node.wsUrl);
    try {
      const sub = await client.call("eth_subscribe", ["newHeads"]);
      expect(sub.result).toMatch(/^0x[0-9a-f]+$/);
      for (let i = 0; i < 8; i++) expect((await client.call("eth_chainId")).result).toBe("0x539");
      const refused = await client.call("eth_chainId");
      expect(refused.error).toMatchObject({
        code: -32005,
        message: "limit exceeded",
        data: { tier: "free", limit: 10, period: "second" },
      });
      // A refused batch gets the error under every entry's id.
      client.send([call("eth_chainId", "a"), call("eth_chainId", "b")]);
      const refusedBatch = await client.waitFor((m) => Array.isArray(m));
      expect(refusedBatch.map((m: { id: string; error: { code: number } }) => [m.id, m.error.code])).toEqual([
        ["a", -32005],
        ["b", -32005],
      ]);
      // Notifications still flow while the caller is at its limit, and do not count.
      await node.producer.mine(3);
      await client.waitFor(
        () => client.messages.filter((m) => m.params?.subscription === sub.result).length >= 3,
      );
      expect(client.ws.readyState).toBe(WebSocket.OPEN);
      nextSecond();
      expect((await client.call("eth_chainId")).result).toBe("0x539");
    } finally {
      client.ws.close();
    }
  });
});

describe("a node with --api-keys on the embedded key database", () => {
  const dir = mkdtempSync(join(tmpdir(), "strata-node-keys-"));
  let access: NodeAccess;
  let node: StrataNode;

  beforeAll(async () => {
    access = await openNodeAccess({ keysDataDir: dir }, () => undefined);
    node = await createNode(testConfig({ mining: { mode: "manual" } }), createLogger("silent"), {
      gate: access.gate,
    });
    await node.start();
  });

  afterAll(async () => {
    await node?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("counts in memory, and refuses keyed calls with 503 once the key database is gone", async () => {
    expect(access.limiterKind).toBe("memory");
    const keyless = await post(node.rpcUrl, call("eth_chainId"));
    expect(keyless.status).toBe(200);
    expect(keyless.headers.get("ratelimit-limit")).toBe("10");
    // The key caches and the in-memory counters are reported with their bounds.
    const metrics = await (await fetch(`${node.rpcUrl}/metrics`)).text();
    expect(metrics).toContain('strata_cache_size{cache="limiter_subjects",unit="entries"} 1');
    expect(metrics).toContain('strata_cache_bound{cache="limiter_subjects",unit="entries"} 100000');
    expect(metrics).toContain('strata_cache_bound{cache="api_key_lookups",unit="entries"} 10000');
    expect(metrics).toContain('strata_cache_bound{cache="refused_key_ips",unit="entries"} 10000');
    await access.close();
    const keyed = await post(node.rpcUrl, call("eth_chainId", 3), { "X-API-Key": "strata_some-key" });
    expect(keyed.status).toBe(503);
    expect(keyed.json).toEqual({
      jsonrpc: "2.0",
      id: 3,
      error: { code: -32002, message: "API key check unavailable" },
    });
    expect((await refusedUpgrade(node.wsUrl, { "X-API-Key": "strata_some-key" })).status).toBe(503);
  });
});

describe("a node started without --api-keys", () => {
  let node: StrataNode;

  beforeAll(async () => {
    node = await createNode(testConfig({ mining: { mode: "manual" } }), createLogger("silent"));
    await node.start();
  });

  afterAll(async () => {
    await node?.stop();
  });

  it("answers every keyless request without limit or RateLimit-* headers, and ignores keys", async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => post(node.rpcUrl, call("eth_blockNumber", i))),
    );
    expect(answers.map((a) => a.status)).toEqual(new Array(30).fill(200));
    expect(answers.every((a) => a.headers.get("ratelimit-limit") === null)).toBe(true);
    const withKey = await post(node.rpcUrl, call("eth_chainId"), { "X-API-Key": "strata_not-a-key" });
    expect(withKey.status).toBe(200);
    const client = await WsClient.open(`${node.wsUrl}/?apiKey=strata_not-a-key`);
    expect((await client.call("eth_chainId")).result).toBe("0x539");
    client.ws.close();
  });
});

describe("strata node --api-keys flags", () => {
  const settings = (...argv: string[]) => nodeAccessFromFlags(parseFlags(argv, NODE_FLAGS, { env: {} }), {});

  it("reads the key database and counter settings only with --api-keys", () => {
    expect(settings()).toBeUndefined();
    expect(settings("--api-keys")).toMatchObject({ keysDataDir: ".strata/gateway" });
    expect(
      settings(
        "--api-keys",
        "--keys-datadir",
        "/tmp/k",
        "--redis-url",
        "redis://h:1",
        "--limiter-failure",
        "closed",
      ),
    ).toEqual({ keysDataDir: "/tmp/k", redisUrl: "redis://h:1", limiterFailure: "closed" });
    expect(() => settings("--database-url", "postgres://x")).toThrow(
      /--database-url applies only with --api-keys/,
    );
    expect(() => settings("--api-keys", "--limiter-failure", "maybe")).toThrow(/expected open \| closed/);
    expect(NODE_HELP).toMatch(/--api-keys/);
  });
});
