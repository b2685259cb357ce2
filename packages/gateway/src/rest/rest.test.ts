import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Database, indexerDb } from "@strata/db";
import { Indexer, RpcClient } from "@strata/indexer";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScratchDatabase, scratchDatabase } from "../../../../test/support/scratch-database.js";
import {
  type Activity,
  type DevChain,
  devAccount,
  seedActivity,
  startDevChain,
} from "../../../indexer/src/e2e/fixtures.js";
import { createRestApi, type OPENAPI_DOCUMENT } from "./index.js";

let chain: DevChain;
let activity: Activity;
let scratch: ScratchDatabase;
let db: Database;
let node: RpcClient;
let base: string;
const servers: Server[] = [];

async function serve(handler: ReturnType<typeof createRestApi>): Promise<string> {
  const server = createServer((req, res) => {
    void handler(req, res, new URL(req.url ?? "/", "http://localhost"));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function get<T = Record<string, unknown>>(
  path: string,
  at = base,
): Promise<{ status: number; body: T }> {
  const res = await fetch(at + path);
  return { status: res.status, body: (await res.json()) as T };
}

const acct = (i: number) => devAccount(i).address.toLowerCase();

beforeAll(async () => {
  chain = await startDevChain();
  activity = await seedActivity(chain);
  scratch = await scratchDatabase();
  db = scratch.db;
  const indexer = await Indexer.open({
    rpcUrl: chain.url,
    db,
    wsUrl: null,
    logger: pino({ level: "silent" }),
  });
  await indexer.sync();
  node = new RpcClient(chain.url);
  base = await serve(createRestApi({ database: db, rpc: (method, params) => node.call(method, params) }));
});

afterAll(async () => {
  for (const server of servers) server.close();
  await scratch?.drop();
  await chain?.stop();
});

describe("REST /v1", () => {
  it("GET /v1/chain summarises the indexed chain", async () => {
    const head = Number(BigInt(await node.call<string>("eth_blockNumber")));
    const { status, body } = await get("/v1/chain");
    expect(status).toBe(200);
    expect(body).toMatchObject({
      chainId: 1337,
      network: "dev",
      blockNumber: head,
      totalTransactions: 4,
      indexerLag: 0,
    });
    expect(body.latestBlockTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(body.totalAddresses).toBeGreaterThanOrEqual(5);
    expect(typeof body.tps).toBe("number");
    // Genesis (timestamp 0 on dev) is not a block interval: the average is that of the mined blocks.
    expect(body.avgBlockTimeSeconds).toBeGreaterThanOrEqual(0);
    expect(body.avgBlockTimeSeconds).toBeLessThan(3600);
    expect(body.tps).toBeGreaterThan(0);
  });

  it("pages blocks with cursors and serves one block by number or hash with its transactions", async () => {
    const first = await get<{ items: { number: number }[]; nextCursor: string }>("/v1/blocks?limit=2");
    expect(first.body.items).toHaveLength(2);
    const [a, b] = first.body.items;
    expect(b!.number).toBe(a!.number - 1);
    const second = await get<{ items: { number: number }[] }>(
      `/v1/blocks?limit=2&cursor=${first.body.nextCursor}`,
    );
    expect(second.body.items[0]!.number).toBe(b!.number - 1);
    const all = await get<{ items: unknown[]; nextCursor: string | null }>("/v1/blocks?limit=100");
    expect(all.body.nextCursor).toBeNull();

    const tx = await get<{ blockNumber: number; blockHash: string }>(
      `/v1/transactions/${activity.tokenTransfer}`,
    );
    const byNumber = await get<Record<string, unknown>>(`/v1/blocks/${tx.body.blockNumber}`);
    expect(byNumber.status).toBe(200);
    expect(byNumber.body).toMatchObject({
      number: tx.body.blockNumber,
      hash: tx.body.blockHash,
      transactionCount: 1,
    });
    expect(byNumber.body.transactions).toEqual([
      expect.objectContaining({ hash: activity.tokenTransfer, status: "success" }),
    ]);
    const byHash = await get(`/v1/blocks/${tx.body.blockHash}`);
    expect(byHash.body.number).toBe(tx.body.blockNumber);
    expect((await get("/v1/blocks/999999")).status).toBe(404);
    expect((await get("/v1/blocks/latest")).body).toEqual({
      error: { code: "bad_request", message: expect.stringContaining("numberOrHash") },
    });
  });

  it("serves a transaction with its receipt, decoded logs and token transfers", async () => {
    const { status, body } = await get<Record<string, unknown>>(`/v1/transactions/${activity.tokenTransfer}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      hash: activity.tokenTransfer,
      from: acct(0),
      to: activity.token,
      value: "0",
      status: "success",
      revertReason: null,
      contractAddress: null,
    });
    expect(body.datetime).toMatch(/Z$/);
    expect(body.logs).toEqual([
      expect.objectContaining({
        address: activity.token,
        decoded: { event: "Transfer", args: { from: acct(0), to: acct(2), value: "250000000000000000000" } },
      }),
    ]);
    expect(body.tokenTransfers).toEqual([
      expect.objectContaining({
        token: activity.token,
        symbol: "TTK",
        decimals: 18,
        from: acct(0),
        to: acct(2),
        value: "250000000000000000000",
      }),
    ]);
    const reverted = await get(`/v1/transactions/${activity.reverted}`);
    expect(reverted.body).toMatchObject({
      status: "reverted",
      revertReason: "ERC20: transfer amount exceeds balance",
    });
    expect((await get(`/v1/transactions/0x${"ab".repeat(32)}`)).status).toBe(404);
    expect((await get("/v1/transactions/0x1234")).status).toBe(400);
  });

  it("serves addresses with live balance, contract creation and paged transactions", async () => {
    const balance = BigInt(await node.call<string>("eth_getBalance", [acct(0), "latest"])).toString();
    const eoa = await get(`/v1/addresses/${devAccount(0).address}`);
    expect(eoa.body).toMatchObject({
      address: acct(0),
      balance,
      nonce: 3,
      isContract: false,
      transactionCount: 3,
      token: null,
    });

    const contract = await get<Record<string, unknown>>(`/v1/addresses/${activity.token}`);
    expect(contract.body).toMatchObject({
      isContract: true,
      creator: acct(0),
      creationTransaction: activity.deploy,
      token: expect.objectContaining({ symbol: "TTK", name: "Test Token" }),
    });
    expect(contract.body.code).toMatch(/^0x[0-9a-f]{100,}$/);

    const page1 = await get<{ items: { hash: string }[]; nextCursor: string }>(
      `/v1/addresses/${acct(0)}/transactions?limit=2`,
    );
    expect(page1.body.items.map((t) => t.hash)).toEqual([activity.tokenTransfer, activity.deploy]);
    const page2 = await get<{ items: { hash: string }[]; nextCursor: string | null }>(
      `/v1/addresses/${acct(0)}/transactions?limit=2&cursor=${page1.body.nextCursor}`,
    );
    expect(page2.body).toEqual({
      items: [expect.objectContaining({ hash: activity.transfer })],
      nextCursor: null,
    });

    const transfers = await get<{ items: { value: string }[] }>(`/v1/addresses/${acct(2)}/token-transfers`);
    expect(transfers.body.items.map((t) => t.value)).toEqual(["250000000000000000000"]);
    expect((await get("/v1/addresses/0xnothex")).status).toBe(400);
  });

  it("serves tokens with holder and transfer counts, and their transfers", async () => {
    const list = await get<{ items: { address: string }[] }>("/v1/tokens");
    expect(list.body.items.map((t) => t.address)).toEqual([activity.token]);
    const token = await get(`/v1/tokens/${activity.token}`);
    expect(token.body).toMatchObject({
      address: activity.token,
      name: "Test Token",
      symbol: "TTK",
      decimals: 18,
      totalSupply: "1000000000000000000000000",
      transferCount: 2,
      holderCount: 2,
    });
    const transfers = await get<{ items: { from: string }[] }>(`/v1/tokens/${activity.token}/transfers`);
    expect(transfers.body.items.map((t) => t.from)).toEqual([
      acct(0),
      "0x0000000000000000000000000000000000000000",
    ]);
    expect((await get(`/v1/tokens/${acct(5)}`)).status).toBe(404);
  });

  it("classifies search terms", async () => {
    expect((await get("/v1/search?q=1")).body).toEqual({ type: "block", value: 1 });
    expect((await get(`/v1/search?q=${activity.transfer}`)).body).toEqual({
      type: "transaction",
      value: activity.transfer,
    });
    expect((await get(`/v1/search?q=${devAccount(1).address}`)).body).toEqual({
      type: "address",
      value: acct(1),
    });
    expect((await get(`/v1/search?q=${activity.token}`)).body).toEqual({
      type: "token",
      value: activity.token,
    });
    expect((await get("/v1/search?q=ttk")).body).toEqual({ type: "token", value: activity.token });
    expect((await get("/v1/search?q=nothing-here")).body).toEqual({ type: null, value: null });
    expect((await get("/v1/search?q=")).status).toBe(400);
  });

  it("serves block stats for charts, oldest first, and bounds count", async () => {
    const { body } =
      await get<{ number: number; transactionCount: number; gasUsed: string }[]>("/v1/stats/blocks?count=3");
    expect(body).toHaveLength(3);
    expect(body[1]!.number).toBe(body[0]!.number + 1);
    expect(typeof body[0]!.gasUsed).toBe("string");
    expect((await get("/v1/stats/blocks?count=501")).status).toBe(400);
  });

  it("passes the chain modules through from the node, or answers 503 when it does not serve them", async () => {
    const direct = await node.call("svc_getStakingInfo", []).then(
      (r) => ({ ok: true as const, r }),
      () => ({ ok: false as const }),
    );
    const rest = await get("/v1/staking");
    if (direct.ok) expect(rest).toEqual({ status: 200, body: direct.r });
    else expect(rest.status).toBe(503);
    const depin = await get<{ items: unknown[] }>("/v1/depin/nodes?type=compute");
    expect(depin.status).toBe(200);
    expect(Array.isArray(depin.body.items)).toBe(true);
    expect((await get("/v1/depin/nodes?type=toaster")).status).toBe(400);
    expect((await get(`/v1/validators/${acct(0)}/history`)).body).toEqual({ items: [], nextCursor: null });
    const validators = await node.call("svc_getValidators", []).then(
      (r) => r as { uptime: string }[],
      () => undefined,
    );
    if (validators) {
      // REST gives every ratio as a fraction: the percentage uptime of JSON-RPC divided by 100.
      const restValidators = await get<{ items: { uptime: string }[] }>("/v1/validators");
      expect(restValidators.body.items).toEqual(
        validators.map((v) => ({ ...v, uptime: String(Number(v.uptime) / 100) })),
      );
    }
  });

  it("answers errors as {error: {code, message}} and refuses bad paging", async () => {
    expect(await get("/v1/nope")).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "no such resource /v1/nope" } },
    });
    expect((await get("/v1/blocks?limit=0")).status).toBe(400);
    expect((await get("/v1/blocks?limit=101")).status).toBe(400);
    expect((await get("/v1/transactions?cursor=garbage")).status).toBe(400);
    const withoutIndex = await serve(createRestApi({ database: undefined }));
    expect((await get("/v1/blocks", withoutIndex)).body).toMatchObject({ error: { code: "unavailable" } });
  });

  it("describes every route in OpenAPI 3.1 and renders self-contained docs", async () => {
    const { status, body } = await get<typeof OPENAPI_DOCUMENT>("/v1/openapi.json");
    expect(status).toBe(200);
    expect(body.openapi).toBe("3.1.0");
    for (const path of [
      "/v1/chain",
      "/v1/blocks/{numberOrHash}",
      "/v1/transactions/{hash}",
      "/v1/addresses/{address}/token-transfers",
      "/v1/tokens/{address}/transfers",
      "/v1/validators/{address}/history",
      "/v1/staking/{address}",
      "/v1/depin/nodes",
      "/v1/predictions/{asset}",
      "/v1/search",
      "/v1/stats/blocks",
    ]) {
      expect(Object.keys(body.paths)).toContain(path);
    }
    // Every ratio is described as a decimal fraction, wherever it appears.
    const ratios = [
      "commission",
      "uptime",
      "apr",
      "confidence",
      "probabilityUp",
      "mape",
      "baselineMape",
      "coverage80",
      "calibrationError",
    ];
    const described: string[] = [];
    const walk = (node: unknown) => {
      if (node === null || typeof node !== "object") return;
      const properties = (node as { properties?: Record<string, unknown> }).properties ?? {};
      for (const [name, schema] of Object.entries(properties)) {
        if (ratios.includes(name)) {
          expect(JSON.stringify(schema), name).toMatch(/decimal fraction \(0\.05 = 5 %\)/);
          described.push(name);
        }
      }
      for (const child of Object.values(node)) walk(child);
    };
    walk(body.components.schemas);
    expect(new Set(described)).toEqual(new Set(ratios));
    const refs = JSON.stringify(body).match(/#\/components\/schemas\/\w+/g) ?? [];
    for (const ref of refs) expect(Object.keys(body.components.schemas)).toContain(ref.split("/").pop());
    const docs = await fetch(`${base}/docs`);
    const html = await docs.text();
    expect(docs.headers.get("content-type")).toMatch(/text\/html/);
    expect(html).toContain("/v1/transactions/{hash}");
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=["']?https?:/i);
  });
});

describe("REST reads what the indexer stores", () => {
  it("lists validator history snapshots newest first with a cursor", async () => {
    for (const epoch of [1n, 2n, 3n]) {
      await db.query(
        "INSERT INTO validator_snapshots (epoch, address, block_number, stake, blocks_proposed, blocks_missed, uptime) VALUES ($1, $2, $3, $4, $5, 0, $6)",
        [epoch, acct(7), epoch * 10n, `${epoch}000`, epoch * 3n, epoch === 3n ? "99.50" : "100.00"],
      );
    }
    const first = await get<{ items: { epoch: number }[]; nextCursor: string }>(
      `/v1/validators/${acct(7)}/history?limit=2`,
    );
    expect(first.body.items).toEqual([
      // Uptime is stored as svc_getValidators gives it (a percentage) and served as a fraction.
      { epoch: 3, blockNumber: 30, stake: "3000", blocksProposed: 9, blocksMissed: 0, uptime: "0.995" },
      expect.objectContaining({ epoch: 2 }),
    ]);
    const rest = await get<{ items: { epoch: number }[]; nextCursor: null }>(
      `/v1/validators/${acct(7)}/history?limit=2&cursor=${first.body.nextCursor}`,
    );
    expect(rest.body).toEqual({ items: [expect.objectContaining({ epoch: 1 })], nextCursor: null });
    expect(await indexerDb.latestValidatorCount(db)).toBe(1);
  });

  it("serves an asset's daily closes and a walk-forward backtest of the model on them", async () => {
    const day = 86_400;
    const start = 1_700_000_000 - (1_700_000_000 % day);
    for (let i = 0; i < 200; i++) {
      const price = String(Math.round(1e10 * (1 + 0.1 * Math.sin(i / 9))) / 1e8);
      // Two observations a day: the later one is the day's close.
      for (const [offset, p] of [
        [3_600, "1"],
        [80_000, price],
      ] as const) {
        await db.query(
          "INSERT INTO oracle_prices (asset, observed_at, price, round_id, block_number) VALUES ('TST', $1, $2, $3, 1)",
          [BigInt(start + i * day + offset), p, BigInt(2 * i + (offset > 3_600 ? 1 : 0))],
        );
      }
    }
    const feeds = await get<{ items: { asset: string; observations: number }[] }>("/v1/predictions");
    expect(feeds.body.items).toEqual([expect.objectContaining({ asset: "TST", observations: 400 })]);

    const { status, body } = await get<{
      prediction: unknown;
      history: { timestamp: number; price: string }[];
      backtest: Record<string, number>;
    }>("/v1/predictions/tst?horizon=7");
    expect(status).toBe(200);
    expect(body.prediction).toBeNull();
    expect(body.history).toHaveLength(200);
    expect(body.history[0]).toMatchObject({ timestamp: start + 80_000, price: "100" });
    expect(body.history.every((h) => h.price !== "1")).toBe(true);
    expect(body.backtest).toMatchObject({ horizon: 7 });
    for (const key of ["mape", "baselineMape", "coverage80", "calibrationError"]) {
      expect(Number.isFinite(body.backtest[key])).toBe(true);
    }
    expect((await get("/v1/predictions/NOPE")).status).toBe(404);
    expect((await get("/v1/predictions/TST?horizon=0")).status).toBe(400);
  });
});
