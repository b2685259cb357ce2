import { join } from "node:path";
import { openDatabase } from "@strata/db";
import {
  createIndexerMetrics,
  Indexer,
  NodeUnreachableError,
  RpcClient,
  serveMetrics,
} from "@strata/indexer";
import { type FlagSpec, formatFlags, intFlag, parseFlags } from "../flags.js";
import { untilSignal } from "../signals.js";
import { UsageError } from "../usage-error.js";

/** Flags of `strata indexer`. */
export const INDEXER_FLAGS: Record<string, FlagSpec> = {
  rpc: { type: "string", description: "node JSON-RPC URL to index (required), e.g. http://127.0.0.1:8545" },
  ws: { type: "string", description: "node WebSocket URL for newHeads (default: the --rpc URL as ws://)" },
  "database-url": {
    type: "string",
    description: "postgres:// URL of the index (default DATABASE_URL, else embedded PGlite)",
  },
  "data-dir": { type: "string", description: "embedded PGlite directory (default .strata/<network>/index)" },
  "batch-size": { type: "string", description: "blocks per batched fetch during backfill (default 50)" },
  "metrics-port": {
    type: "string",
    description: "serve Prometheus GET /metrics on this port (default: off)",
  },
  "log-level": { type: "string", description: "trace | debug | info | warn | error | silent (default info)" },
  help: { type: "boolean", description: "print this help" },
};

/** Help text of `strata indexer`. */
export const INDEXER_HELP = `Usage: strata indexer --rpc URL [flags]

Indexes a Strata node into PostgreSQL (blocks, transactions, receipts, logs, addresses, contracts,
ERC-20 tokens and transfers, validators, DePIN nodes, oracle prices and predictions), backfilling
from the last indexed block and then following new heads. Safe to stop or kill at any time.
A block that fails to index is retried 5 times (backoff 1 s .. 30 s), then the indexer reports
itself failed (error log, strata_indexer_failed 1) and retries every 5 minutes; it never skips a block.

Flags (each also read from STRATA_<FLAG>, e.g. STRATA_DATABASE_URL):
${formatFlags(INDEXER_FLAGS)}`;

const NETWORKS: Record<string, string> = { "1337": "dev", "13370": "mainnet" };

/** `strata indexer`: indexes until SIGINT/SIGTERM. */
export async function runIndexer(argv: readonly string[], out: (line: string) => void): Promise<number> {
  const values = parseFlags(argv, INDEXER_FLAGS, { command: "indexer" });
  if (values.help) {
    out(INDEXER_HELP);
    return 0;
  }
  const rpcUrl = values.rpc;
  if (typeof rpcUrl !== "string" || !/^https?:\/\/\S+$/.test(rpcUrl)) {
    throw new UsageError("--rpc is required: the node's HTTP JSON-RPC URL, e.g. --rpc http://127.0.0.1:8545");
  }
  const batch = values["batch-size"] === undefined ? 50 : Number(values["batch-size"]);
  if (!Number.isInteger(batch) || batch < 1 || batch > 500) {
    throw new UsageError(
      `--batch-size: expected an integer in 1..500, got "${String(values["batch-size"])}"`,
    );
  }
  const databaseUrl = (values["database-url"] as string | undefined) ?? process.env.DATABASE_URL;
  let chainId: string;
  try {
    chainId = BigInt(await new RpcClient(rpcUrl).call("eth_chainId", [])).toString();
  } catch (error) {
    if (error instanceof NodeUnreachableError) throw new UsageError(`--rpc: ${error.message}`);
    throw error;
  }
  const network = NETWORKS[chainId] ?? `chain-${chainId}`;
  const dataDir = (values["data-dir"] as string | undefined) ?? join(".strata", network, "index");
  let db: Awaited<ReturnType<typeof openDatabase>>;
  try {
    db = await openDatabase(databaseUrl, dataDir);
  } catch (error) {
    throw new UsageError(`--database-url: ${error instanceof Error ? error.message : String(error)}`);
  }
  const indexer = await Indexer.open({
    rpcUrl,
    db,
    batchSize: batch,
    ...(typeof values.ws === "string" ? { wsUrl: values.ws } : {}),
    ...(typeof values["log-level"] === "string" ? { logLevel: values["log-level"] } : {}),
    onProgress: (p) =>
      out(
        p.done
          ? `backfill done: block ${p.indexedBlock} (${p.blocksPerSecond} blocks/s)`
          : `backfill: block ${p.indexedBlock} of ${p.headBlock} (${p.blocksPerSecond} blocks/s, lag ${p.headBlock - p.indexedBlock})`,
      ),
  });
  const where = db.kind === "postgres" ? "PostgreSQL" : `embedded PGlite at ${dataDir}`;
  out(`Strata indexer · chain id ${chainId} (${network}) · ${rpcUrl} -> ${where}`);
  out(`resuming after block ${indexer.status().indexedBlock}`);
  indexer.start();
  const metrics =
    values["metrics-port"] === undefined
      ? undefined
      : await serveMetrics(
          createIndexerMetrics(() => indexer.status(), { structures: () => indexer.structures() }),
          intFlag(values, "metrics-port", 0, 0, 65535),
        );
  if (metrics) out(`ready ${metrics.url}`);
  await untilSignal();
  await metrics?.close();
  await indexer.stop();
  await db.close();
  out(`stopped at block ${indexer.status().indexedBlock}`);
  return 0;
}
