import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Database, indexerDb, type SqlValue } from "@strata/db";
import { Indexer } from "@strata/indexer";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { scratchDatabase } from "../../../../test/support/scratch-database.js";
import { GATEWAY_FLAGS, gatewayConfigFromFlags, runGateway } from "../../../cli/src/commands/gateway.js";
import { parseFlags } from "../../../cli/src/flags.js";
import {
  type DevChain,
  deployHostileToken,
  HOSTILE_TEXT_STORED,
  sendHostileRevert,
  startDevChain,
} from "../../../indexer/src/e2e/fixtures.js";
import { startTestNode, type TestNode } from "../../../node/src/testing/test-node.js";
import type { Gateway } from "../gateway.js";
import { ApiKeyStore } from "../keys/key-store.js";
import {
  call,
  entries,
  get,
  type Json,
  ManualClock,
  post,
  REDIS_URL,
  redisPrefix,
  startGateway,
  WsClient,
} from "./helpers.js";

/*
 * Hostile input to the gateway: requests (and chain data) chosen to break it, leak from it or outlive
 * their key. Real PostgreSQL and Redis where the gateway uses them.
 */

describe("chain-supplied text through REST (PostgreSQL)", () => {
  let chain: DevChain;
  let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
  let gateway: Gateway;
  let token: string;
  let reverted: string;

  beforeAll(async () => {
    chain = await startDevChain();
    token = await deployHostileToken(chain);
    reverted = await sendHostileRevert(chain);
    scratch = await scratchDatabase();
    const indexer = await Indexer.open({
      rpcUrl: chain.url,
      db: scratch.db,
      wsUrl: null,
      logger: pino({ level: "silent" }),
    });
    await indexer.sync();
    gateway = await startGateway({ upstreams: [chain.url] }, { database: scratch.db });
  });
  afterAll(async () => {
    await gateway?.stop();
    await scratch?.drop();
    await chain?.stop();
  });

  it("serves a token whose name() returns NUL and invalid UTF-8, and such a revert reason", async () => {
    expect(await indexerDb.findToken(scratch.db, token)).toBeDefined();
    const shown = await get(`${gateway.url}/v1/tokens/${token}`);
    expect(shown.status).toBe(200);
    expect(shown.json).toMatchObject({ name: HOSTILE_TEXT_STORED, symbol: `${"S".repeat(255)}…` });
    const listed = await get(`${gateway.url}/v1/tokens`);
    expect((listed.json as unknown as { items: Json[] }).items).toContainEqual(
      expect.objectContaining({ address: token, name: HOSTILE_TEXT_STORED }),
    );
    const tx = await get(`${gateway.url}/v1/transactions/${reverted}`);
    expect(tx.status).toBe(200);
    expect(JSON.stringify(tx.json)).toContain("Nul\ufffd");
  });

  it("bounds REST aggregate counts: totals kept by the writes, per-address counts capped", async () => {
    const [counted] = await scratch.db.query<{ txs: bigint }>(
      "SELECT count(*)::int8 AS txs FROM transactions",
    );
    const chainInfo = await get(`${gateway.url}/v1/chain`);
    expect((chainInfo.json as unknown as { totalTransactions: number }).totalTransactions).toBe(
      Number(counted!.txs),
    );
    // An address with more transactions than one request counts.
    const busy = "0x00000000000000000000000000000000000b0557";
    await scratch.db.query(
      `INSERT INTO transactions (hash, block_number, block_hash, tx_index, from_address, to_address, value, nonce, gas, type, input)
       SELECT '0x' || lpad(to_hex(i), 64, '0'), 0, '0x00', i, $1, NULL, 0, i, 21000, 2, '0x'
         FROM generate_series(1, 10005) AS i`,
      [busy],
    );
    const address = await get(`${gateway.url}/v1/addresses/${busy}`);
    expect(address.status).toBe(200);
    expect(address.json).toMatchObject({ transactionCount: 10_000, transactionCountIsLowerBound: true });
    const figures = await indexerDb.tokenFigures(scratch.db, token);
    expect(figures).toEqual({ transfers: { count: 1n, atLeast: false }, holders: 1n });
  });
});

/** `db` with a count of the queries `counts` picks. */
function countingQueries(
  db: Database,
  counts: (sql: string) => boolean,
): { db: Database; count: () => number } {
  let count = 0;
  const counted: Database = {
    kind: db.kind,
    query: ((sql: string, params?: readonly SqlValue[]) => {
      if (counts(sql)) count++;
      return db.query(sql, params);
    }) as Database["query"],
    exec: (sql) => db.exec(sql),
    transaction: (work) => db.transaction(work),
    close: () => db.close(),
  };
  return { db: counted, count: () => count };
}

/** Resolves with the close code of `ws`, or rejects after `ms`. */
function closeCode(ws: WebSocket, ms: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("socket still open")), ms);
    ws.once("close", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** Opens a raw WebSocket and resolves with the upgrade's HTTP status (101 when accepted). */
function upgradeStatus(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; ws: WebSocket }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once("open", () => resolve({ status: 101, ws }));
    ws.once("unexpected-response", (_req, res) => {
      resolve({ status: res.statusCode ?? 0, ws });
      res.resume();
    });
    ws.once("error", reject);
  });
}

describe("keys and limits on every path", () => {
  let node: TestNode;
  let database: Awaited<ReturnType<typeof scratchDatabase>>;
  const gateways: Gateway[] = [];
  const open: WebSocket[] = [];

  beforeAll(async () => {
    node = await startTestNode();
    database = await scratchDatabase();
  });
  afterAll(async () => {
    for (const ws of open) ws.terminate();
    for (const gateway of gateways) await gateway.stop();
    await database?.drop();
    await node?.stop();
  });

  async function gateway(...[overrides, dependencies]: Parameters<typeof startGateway>): Promise<Gateway> {
    const started = await startGateway({ port: 0, ...overrides }, dependencies);
    gateways.push(started);
    return started;
  }

  it("--trust-proxy N counts the address the proxy appended, not the client-written leftmost one", async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 15, 12, 0, 0, 250));
    const g = await gateway(
      { upstreams: [node.url], trustProxy: 1 },
      { clock: clock.read, database: database.db },
    );
    const through = (spoofed: string) => ({ "X-Forwarded-For": `${spoofed}, 203.0.113.7` });
    for (let i = 0; i < 10; i++) {
      expect((await post(g.url, call("eth_chainId"), through(`198.51.100.${i}`))).status).toBe(200);
    }
    expect((await post(g.url, call("eth_chainId"), through("198.51.100.99"))).status).toBe(429);
    // Another client behind the same proxy has its own count.
    expect((await post(g.url, call("eth_chainId"), { "X-Forwarded-For": "203.0.113.8" })).status).toBe(200);
  });

  it("counts unknown keys against the caller's IP and caches them: random keys are not one lookup each", async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 15, 13, 0, 0, 250));
    const counting = countingQueries(database.db, (sql) => sql.includes("FROM api_keys WHERE key_hash"));
    const g = await gateway(
      { upstreams: [node.url], keyCacheSeconds: 5 },
      { clock: clock.read, database: counting.db },
    );
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const answer = await post(g.url, call("eth_chainId"), {
        "X-API-Key": `sk_${randomBytes(16).toString("hex")}`,
      });
      statuses.push(answer.status);
      if (answer.status === 401)
        expect(answer.json.error).toMatchObject({ code: -32000, message: "invalid API key" });
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual(Array(20).fill(429));
    // Ten within the IP's Free-tier second, one that finds the limit reached, then none.
    expect(counting.count()).toBe(11);
    // A key cached as unknown costs no second lookup, and keyless calls of that IP were used up too.
    clock.advance(1_000);
    const again = `sk_${randomBytes(16).toString("hex")}`;
    expect((await post(g.url, call("eth_chainId"), { "X-API-Key": again })).status).toBe(401);
    expect((await post(g.url, call("eth_chainId"), { "X-API-Key": again })).status).toBe(401);
    expect(counting.count()).toBe(12);
  });

  it("closes an open WebSocket within the key cache time once its key is revoked elsewhere", async () => {
    const g = await gateway({ upstreams: [node.url], keyCacheSeconds: 1 }, { database: database.db });
    const { key, id } = await g.keys.create("developer", "revoked on an open socket");
    const client = await WsClient.open(g.wsUrl, { "X-API-Key": key });
    open.push(client.ws);
    expect((await client.call("eth_subscribe", ["newHeads"])).result).toMatch(/^0x/);
    const closed = closeCode(client.ws, 8_000);
    // Revoked through another store (another gateway instance): this one learns it from its cache expiry.
    await new ApiKeyStore(database.db).revoke(id);
    const started = Date.now();
    expect(await closed).toBe(1008);
    // Within the key cache time (1 s) plus one re-check period (1 s), with room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("counts a WebSocket upgrade as a call and caps connections per IP", async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 15, 14, 0, 0, 250));
    const g = await gateway(
      { upstreams: [node.url], maxWsConnectionsPerIp: 2, redisUrl: REDIS_URL, redisKeyPrefix: redisPrefix() },
      { clock: clock.read, database: database.db },
    );
    for (let i = 0; i < 10; i++) expect((await post(g.url, call("eth_chainId"))).status).toBe(200);
    expect((await upgradeStatus(g.wsUrl)).status).toBe(429);
    clock.advance(1_000);
    const first = await upgradeStatus(g.wsUrl);
    const second = await upgradeStatus(g.wsUrl);
    open.push(first.ws, second.ws);
    expect([first.status, second.status]).toEqual([101, 101]);
    clock.advance(1_000);
    expect((await upgradeStatus(g.wsUrl)).status).toBe(429);
    first.ws.close();
    await new Promise((resolve) => first.ws.once("close", resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const third = await upgradeStatus(g.wsUrl);
    open.push(third.ws);
    expect(third.status).toBe(101);
  });

  it("does not hold a per-IP place for an upgrade whose handshake fails", async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 15, 15, 0, 0, 250));
    const g = await gateway(
      { upstreams: [node.url], maxWsConnectionsPerIp: 2, redisUrl: REDIS_URL, redisKeyPrefix: redisPrefix() },
      { clock: clock.read, database: database.db },
    );
    // An upgrade without Sec-WebSocket-Key passes the limits, then fails its handshake (400).
    const malformed = () =>
      new Promise<number>((resolve, reject) => {
        const req = request(g.wsUrl.replace(/^ws/, "http"), {
          headers: { Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Version": "13" },
        });
        req.on("response", (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("upgrade", () => reject(new Error("handshake should fail")));
        req.on("error", reject);
        req.end();
      });
    for (let i = 0; i < 3; i++) expect(await malformed()).toBe(400);
    clock.advance(1_000);
    const first = await upgradeStatus(g.wsUrl);
    const second = await upgradeStatus(g.wsUrl);
    open.push(first.ws, second.ws);
    expect([first.status, second.status]).toEqual([101, 101]);
  });

  it("caps the polling filters of each caller, whom the node behind sees as one address", async () => {
    const g = await gateway({ upstreams: [node.url], maxFiltersPerCaller: 4 }, { database: database.db });
    const { key } = await g.keys.create("developer", "filters");
    const asKey = { "X-API-Key": key };
    const install = async (headers: Record<string, string> = asKey) =>
      (await post(g.url, call("eth_newBlockFilter"), headers)).json as unknown as {
        result?: string;
        error?: Json;
      };
    const tooMany = {
      code: -32005,
      message: "too many filters for this caller",
      data: { limit: "filtersPerCaller", max: 4 },
    };
    // A body whose installs do not fit is refused whole, as a batch over a rate limit is.
    const batch = await post(
      g.url,
      [1, 2, 3, 4, 5].map((id) => call("eth_newBlockFilter", [], id)),
      asKey,
    );
    expect(entries(batch.json).map((a) => (a as { error?: Json }).error)).toEqual(Array(5).fill(tooMany));
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await install()).result!);
    expect(ids.every((id) => /^0x[0-9a-f]+$/.test(id))).toBe(true);
    expect((await install()).error).toEqual(tooMany);
    // Another caller, at the same node address, is not held back by this one.
    expect((await install({})).result).toMatch(/^0x/);
    // Over WebSocket the same caller holds the same filters.
    const client = await WsClient.open(g.wsUrl, asKey);
    open.push(client.ws);
    expect((await client.call("eth_newBlockFilter")).error).toEqual(tooMany);
    // Polling keeps a filter; uninstalling one frees its place, which a notification's install takes.
    expect((await post(g.url, call("eth_getFilterChanges", [ids[0]]), asKey)).json.result).toEqual(
      expect.any(Array),
    );
    expect((await post(g.url, call("eth_uninstallFilter", [ids[0]]), asKey)).json.result).toBe(true);
    await post(g.url, { jsonrpc: "2.0", method: "eth_newBlockFilter", params: [] }, asKey);
    expect((await install()).error).toEqual(tooMany);
    expect((await post(g.url, call("eth_uninstallFilter", [ids[1]]), asKey)).json.result).toBe(true);
    expect((await install()).result).toMatch(/^0x/);
  });

  it("forgets the in-memory limiter's counters of past windows and days (metrics: limiter_subjects)", async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 16, 23, 59, 0));
    // The limiter sweeps every 10 s of timers: fake interval timers run it at once.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const g = await startGateway(
      { upstreams: [node.url], port: 0, trustProxy: 1 },
      { clock: clock.read, database: database.db },
    ).catch((error: unknown) => {
      vi.useRealTimers();
      throw error;
    });
    try {
      const { key } = await g.keys.create("developer", "swept");
      const subjects = async () => {
        const scraped = (await get(`${g.url}/metrics`)).text;
        return Number(
          /strata_cache_size\{cache="limiter_subjects",unit="entries"\} (\d+)/.exec(scraped)?.[1],
        );
      };
      for (const ip of ["203.0.113.21", "203.0.113.22", "203.0.113.23"]) {
        expect((await post(g.url, call("eth_chainId"), { "X-Forwarded-For": ip })).status).toBe(200);
      }
      expect((await post(g.url, call("eth_chainId"), { "X-API-Key": key })).status).toBe(200);
      expect(await subjects()).toBe(4);
      // Their one-second windows are past, but their daily counts hold until the UTC day ends.
      clock.advance(2_000);
      vi.advanceTimersByTime(10_000);
      expect(await subjects()).toBe(4);
      clock.advance(60_000);
      vi.advanceTimersByTime(10_000);
      expect(await subjects()).toBe(0);
    } finally {
      await g.stop();
      vi.useRealTimers();
    }
  });

  it("closes an idle WebSocket and drops one that does not answer pings", async () => {
    const g = await gateway(
      { upstreams: [node.url], wsPingIntervalMs: 100, wsIdleTimeoutMs: 400 },
      { database: database.db },
    );
    const idle = new WebSocket(g.wsUrl);
    open.push(idle);
    await new Promise((resolve) => idle.once("open", resolve));
    expect(await closeCode(idle, 3_000)).toBe(1001);

    const deaf = new WebSocket(g.wsUrl, { autoPong: false });
    open.push(deaf);
    await new Promise((resolve) => deaf.once("open", resolve));
    // Terminated (no close frame: 1006) at the round after its unanswered ping: the missed ping is
    // checked before idleness, so even late timers cannot turn this into the idle close (1001).
    expect(await closeCode(deaf, 3_000)).toBe(1006);
  });
});

describe("bounded answers", () => {
  let node: TestNode;
  let gateway: Gateway;
  beforeAll(async () => {
    node = await startTestNode();
    gateway = await startGateway({ upstreams: [node.url], port: 0, maxResponseBytes: 20_000 });
  });
  afterAll(async () => {
    await gateway?.stop();
    await node?.stop();
  });

  it("stops a batch's answer at the response cap with -32005 for the remaining entries", async () => {
    const calls = Array.from({ length: 60 }, (_, i) => call("eth_getBlockByNumber", ["0x0", true], i));
    const { key } = await gateway.keys.create("enterprise", "large batches");
    const answer = await post(gateway.url, calls, { "X-API-Key": key });
    expect(answer.status).toBe(200);
    expect(Buffer.byteLength(answer.text)).toBeLessThanOrEqual(20_000);
    const list = answer.json as unknown as { id: number; result?: { number: string }; error?: Json }[];
    expect(list.map((a) => a.id)).toEqual(calls.map((_, i) => i));
    const served = list.findIndex((a) => a.error !== undefined);
    expect(served).toBeGreaterThan(0);
    expect(list.slice(0, served).every((a) => a.result?.number === "0x0")).toBe(true);
    for (const refused of list.slice(served)) {
      expect(refused.error).toEqual({
        code: -32005,
        message: "response exceeds 20000 bytes",
        data: { limit: "responseBytes", max: 20_000 },
      });
    }
  });
});

describe("no leaks, no 500s", () => {
  let node: TestNode;
  let database: Awaited<ReturnType<typeof scratchDatabase>>;
  const gateways: Gateway[] = [];
  const ADMIN_TOKEN = "an-admin-token-of-at-least-32-chars";

  beforeAll(async () => {
    node = await startTestNode();
    database = await scratchDatabase();
  });
  afterAll(async () => {
    for (const gateway of gateways) await gateway.stop();
    await database?.drop();
    await node?.stop();
  });

  async function gateway(...[overrides, dependencies]: Parameters<typeof startGateway>): Promise<Gateway> {
    const started = await startGateway({ port: 0, ...overrides }, dependencies);
    gateways.push(started);
    return started;
  }

  it("never shows an upstream's URL to clients, in JSON-RPC errors or REST bodies", async () => {
    const hidden = "http://127.0.0.1:1/private-upstream-path";
    const g = await gateway({ upstreams: [hidden] }, { database: database.db });
    const rpc = await post(
      g.url,
      call("eth_getBalance", ["0x0000000000000000000000000000000000000001", "latest"]),
    );
    expect(rpc.json.error).toMatchObject({ code: -32002, message: "no upstream node is available" });
    const rest = await get(`${g.url}/v1/validators`);
    expect(rest.status).toBe(503);
    for (const text of [rpc.text, rest.text, (await get(`${g.url}/health`)).text]) {
      expect(text).not.toContain("private-upstream-path");
      expect(text).not.toContain("127.0.0.1:1");
    }
  });

  it("keeps /metrics off a public port: separate listener, or loopback only", async () => {
    const exposed = await gateway({ upstreams: [node.url], addr: "0.0.0.0" }, { database: database.db });
    const port = new URL(exposed.url).port;
    expect((await get(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
    expect(exposed.metricsUrl).toBeNull();
    const separate = await gateway(
      { upstreams: [node.url], addr: "0.0.0.0", metricsPort: 0 },
      { database: database.db },
    );
    expect((await get(`http://127.0.0.1:${new URL(separate.url).port}/metrics`)).status).toBe(404);
    const scraped = await get(separate.metricsUrl!);
    expect(scraped.status).toBe(200);
    expect(scraped.text).toContain("strata_gateway_");

    const publicNode = await startTestNode({ rpc: { addr: "0.0.0.0" } });
    const privateMetrics = await startTestNode({ rpc: { addr: "0.0.0.0", metricsPort: 0 } });
    try {
      const nodePort = new URL(publicNode.url).port;
      expect((await get(`http://127.0.0.1:${nodePort}/metrics`)).status).toBe(404);
      expect(publicNode.node.metricsUrl).toBeNull();
      expect((await get(`http://127.0.0.1:${new URL(privateMetrics.url).port}/metrics`)).status).toBe(404);
      expect((await get(privateMetrics.node.metricsUrl!)).text).toContain("strata_");
    } finally {
      await publicNode.stop();
      await privateMetrics.stop();
    }
  });

  it("serves /health from a cached report: a burst costs one database and one Redis ping", async () => {
    const pings = countingQueries(database.db, (sql) => sql === "SELECT 1");
    const g = await gateway(
      { upstreams: [node.url], healthCacheSeconds: 5, redisUrl: REDIS_URL, redisKeyPrefix: redisPrefix() },
      { database: pings.db },
    );
    const answers = await Promise.all(Array.from({ length: 20 }, () => get(`${g.url}/health`)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(
      answers.every((a) => (a.json as unknown as { checks: { cache: string } }).checks.cache === "ok"),
    ).toBe(true);
    expect(pings.count()).toBe(1);
  });

  it("answers 400, never 500, to bad percent-encoding and NUL in REST and admin paths", async () => {
    const g = await gateway({ upstreams: [node.url], adminToken: ADMIN_TOKEN }, { database: database.db });
    for (const path of [
      "/v1/predictions/%E0%A4%A",
      "/v1/predictions/%zz",
      "/v1/search?q=%00",
      "/v1/depin/nodes?region=%00",
    ]) {
      expect((await get(`${g.url}${path}`)).status, path).toBe(400);
    }
    const admin = await fetch(`${g.url}/admin/keys/%E0%A4%A`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(admin.status).toBe(400);
  });

  it("strata gateway takes the admin token from STRATA_ADMIN_TOKEN or a file, and warns when it is a flag", async () => {
    const dir = mkdtempSync(join(tmpdir(), "strata-hostile-admin-token-"));
    const file = join(dir, "admin-token");
    const flags = (argv: string[], env: Record<string, string> = {}) =>
      gatewayConfigFromFlags(
        parseFlags(["--upstream", node.url, "--port", "0", ...argv], GATEWAY_FLAGS, { env }),
      );
    const listKeys = (url: string, token: string) =>
      fetch(`${url}/admin/keys`, { headers: { Authorization: `Bearer ${token}` } }).then((r) => r.status);
    const fromEnv = "e".repeat(32);
    const fromFile = "f".repeat(40);
    try {
      writeFileSync(file, `${fromFile}\n`, { mode: 0o600 });
      for (const [config, token] of [
        [flags([], { STRATA_ADMIN_TOKEN: fromEnv }), fromEnv],
        [flags(["--admin-token-file", file]), fromFile],
      ] as const) {
        const g = await gateway(config, { database: database.db });
        expect(await listKeys(g.url, token)).toBe(200);
        expect(await listKeys(g.url, ADMIN_TOKEN)).toBe(401);
      }
      writeFileSync(file, "short\n");
      expect(() => flags(["--admin-token-file", file])).toThrow(/at least 32 characters required, got 5/);
      expect(() => flags([], { STRATA_ADMIN_TOKEN: "short" })).toThrow(/at least 32 characters/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // On the command line: a warning first (other users can read it there), then the same refusal.
    const written: string[] = [];
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      await expect(
        runGateway(["--upstream", node.url, "--admin-token", "too-short"], () => {}),
      ).rejects.toThrow(/at least 32 characters/);
    } finally {
      stderr.mockRestore();
    }
    expect(written.join("")).toContain("--admin-token on the command line can be read by other users");
  });

  it("refuses an admin token shorter than 32 characters, and rate-limits failed admin attempts", async () => {
    await expect(startGateway({ upstreams: [node.url], port: 0, adminToken: "short-token" })).rejects.toThrow(
      /adminToken: must be at least 32 characters/,
    );
    const clock = new ManualClock(Date.UTC(2026, 0, 15, 15, 0, 0));
    const g = await gateway(
      { upstreams: [node.url], adminToken: ADMIN_TOKEN },
      { database: database.db, clock: clock.read },
    );
    const list = (token: string) =>
      fetch(`${g.url}/admin/keys`, { headers: { Authorization: `Bearer ${token}` } }).then((r) => r.status);
    for (let i = 0; i < 10; i++) expect(await list(`guess-${i}`)).toBe(401);
    expect(await list("guess-10")).toBe(429);
    // Even the right token waits out the window, so guessing cannot go on at speed.
    expect(await list(ADMIN_TOKEN)).toBe(429);
    clock.advance(60_000);
    expect(await list(ADMIN_TOKEN)).toBe(200);
  });
});
