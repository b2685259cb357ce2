import { indexerDb } from "@strata/db";
import { Indexer } from "@strata/indexer";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type DevChain,
  deployHostileToken,
  HOSTILE_TEXT_STORED,
  sendHostileRevert,
  startDevChain,
} from "../../../indexer/src/e2e/fixtures.js";
import type { Gateway } from "../gateway.js";
import { get, type Json, scratchDatabase, startGateway } from "./helpers.js";

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
});
