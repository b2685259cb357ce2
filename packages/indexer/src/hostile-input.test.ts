import { type Database, indexerDb } from "@strata/db";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScratchDatabase, scratchDatabase } from "../../../test/support/scratch-database.js";
import {
  type DevChain,
  deployHostileToken,
  devAccount,
  HOSTILE_TEXT_STORED,
  sendHostileRevert,
  startDevChain,
} from "./e2e/fixtures.js";
import { Indexer } from "./indexer.js";
import { createIndexerMetrics } from "./indexer-metrics.js";

/*
 * Hostile input to the indexer: whatever a contract returns or a block holds must neither stop the
 * index nor leave it failing silently. Real PostgreSQL (which refuses NUL in text and jsonb).
 */

const silent = pino({ level: "silent" });

describe("indexer against hostile chain data (PostgreSQL)", () => {
  let chain: DevChain;
  let scratch: ScratchDatabase;
  let db: Database;

  beforeAll(async () => {
    chain = await startDevChain();
    scratch = await scratchDatabase();
    db = scratch.db;
  });
  afterAll(async () => {
    await scratch?.drop();
    await chain?.stop();
  });

  it("stores a token name with NUL and invalid UTF-8, an overlong symbol and such a revert reason", async () => {
    const token = await deployHostileToken(chain);
    const reverted = await sendHostileRevert(chain);
    const indexer = await Indexer.open({ rpcUrl: chain.url, db, logger: silent, wsUrl: null });
    const status = await indexer.sync();
    expect(status).toMatchObject({
      indexedBlock: Number(chain.node.chain.head.header.number),
      health: "ok",
      lastError: null,
    });
    const stored = await indexerDb.findToken(db, token);
    expect(stored?.name).toBe(HOSTILE_TEXT_STORED);
    expect(stored?.symbol).toBe(`${"S".repeat(255)}…`);
    const tx = await indexerDb.findTransaction(db, reverted);
    expect(tx?.status).toBe(0);
    expect(tx?.revert_reason).toMatch(/^Nul\ufffd.*\(OK$/);
    expect(tx?.revert_reason).not.toContain("\u0000");
  });

  it("reports a block that keeps failing (logs, status, metrics), retries with backoff, then resumes once it can", async () => {
    const logged: { level: number; msg: string }[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => logged.push(JSON.parse(line)) });
    const indexer = await Indexer.open({
      rpcUrl: chain.url,
      db,
      logger,
      pollIntervalMs: 50,
      retry: { attempts: 3, initialDelayMs: 20, maxDelayMs: 40, failedRetryMs: 400 },
    });
    await indexer.sync();
    const poisoned = Number(chain.node.chain.head.header.number) + 1;
    // A database that refuses one block: the same failure on every attempt.
    await db.exec(`CREATE FUNCTION refuse_block() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.number = ${poisoned} THEN RAISE EXCEPTION 'block ${poisoned} refused'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER refuse_block BEFORE INSERT ON blocks FOR EACH ROW EXECUTE FUNCTION refuse_block();`);
    indexer.start();
    try {
      await chain.send(1, { to: devAccount(6).address, value: 1n });
      await expect.poll(() => indexer.status().health, { timeout: 10_000 }).toBe("failed");
      const status = indexer.status();
      expect(status).toMatchObject({ indexedBlock: poisoned - 1, failingBlock: poisoned });
      expect(status.consecutiveFailures).toBeGreaterThanOrEqual(3);
      expect(status.lastError).toContain(`block ${poisoned} refused`);
      const metrics = await createIndexerMetrics(() => indexer.status()).metrics();
      expect(metrics).toMatch(/^strata_indexer_failed 1$/m);
      expect(metrics).toMatch(new RegExp(`^strata_indexer_failing_block ${poisoned}$`, "m"));
      // Each attempt is logged: warnings while it retries, then an error once it has failed.
      expect(
        logged.some((l) => l.level === 40 && l.msg.startsWith(`indexing block ${poisoned} failed`)),
      ).toBe(true);
      expect(
        logged.some((l) => l.level === 50 && l.msg.startsWith(`indexing FAILED at block ${poisoned}`)),
      ).toBe(true);
      // Failed: attempts slow down to failedRetryMs instead of spinning.
      const before = indexer.status().failures;
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(indexer.status().failures - before).toBeLessThanOrEqual(2);

      await db.exec("DROP TRIGGER refuse_block ON blocks; DROP FUNCTION refuse_block();");
      await expect
        .poll(() => indexer.status().indexedBlock, { timeout: 10_000 })
        .toBeGreaterThanOrEqual(poisoned);
      expect(indexer.status()).toMatchObject({ health: "ok", failingBlock: null, lastError: null });
    } finally {
      await indexer.stop();
    }
  });
});
