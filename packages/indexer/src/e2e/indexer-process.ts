/**
 * Runs an indexer in its own process until SIGTERM (or SIGKILL): `node --import tsx indexer-process.ts RPC_URL DATABASE_URL`.
 * Crash tests kill it mid-backfill and start it again.
 */
import { openDatabase } from "@strata/db";
import { pino } from "pino";
import { Indexer } from "../indexer.js";

const [rpcUrl, databaseUrl] = process.argv.slice(2);
const db = await openDatabase(databaseUrl);
const indexer = await Indexer.open({
  rpcUrl: rpcUrl!,
  db,
  wsUrl: null,
  batchSize: 5,
  pollIntervalMs: 200,
  logger: pino({ level: "warn" }, pino.destination(2)),
});
indexer.start();
process.stdout.write("started\n");
process.once("SIGTERM", async () => {
  await indexer.stop();
  await db.close();
});
