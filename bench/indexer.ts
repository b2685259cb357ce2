/**
 * Indexer backfill benchmark: builds a chain of 10,000 blocks holding 100,000 transfers, then times
 * `Indexer.sync()` from an empty PostgreSQL database to the head (target: under 60 s).
 *
 *   node --import tsx bench/indexer.ts [--blocks N] [--txs-per-block N] [--database-url URL] [--batch-size N]
 *   (or: npm run bench -- --indexer [flags])
 *
 * The chain is built on anvil (manual mining, block gas limit of exactly `txs-per-block` transfers, so
 * one `anvil_mine` call spreads the pool evenly over the blocks): building it with a Strata dev node
 * takes far longer than the indexing being measured. The indexer only speaks standard JSON-RPC
 * (`eth_getBlockByNumber` + `eth_getBlockReceipts`), so the node under it does not change what is timed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import net from "node:net";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { openDatabase, PgDatabase } from "@strata/db";
import { pino } from "pino";
import { Indexer, RpcClient } from "../packages/indexer/src/index.js";
import { anvilBinary } from "./targets.js";

const PORTS = [19200, 19299] as const;
const TRANSFER_GAS = 21_000;
const SEND_BATCH = 1_000;

function freePort(): Promise<number> {
  const tryPort = (port: number): Promise<number> =>
    new Promise((resolve, reject) => {
      if (port > PORTS[1]) return reject(new Error(`no free port in ${PORTS[0]}-${PORTS[1]}`));
      const server = net.createServer();
      server.once("error", () => resolve(tryPort(port + 1)));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(port)));
    });
  return tryPort(PORTS[0]);
}

async function startAnvil(txsPerBlock: number): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const args = [
    ...["--port", String(port), "--host", "127.0.0.1", "--silent", "--chain-id", "1337"],
    ...[
      "--no-mining",
      "--order",
      "fifo",
      "--hardfork",
      "berlin",
      "--gas-limit",
      String(TRANSFER_GAS * txsPerBlock),
    ],
  ];
  const child = spawn(anvilBinary(), args, { stdio: "ignore" });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    try {
      await new RpcClient(url).call("eth_chainId");
      return { url, child };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill("SIGKILL");
  throw new Error("anvil did not start");
}

async function buildChain(url: string, blocks: number, txsPerBlock: number): Promise<void> {
  const rpc = new RpcClient(url);
  const accounts = await rpc.call<string[]>("eth_accounts");
  const total = blocks * txsPerBlock;
  const started = Date.now();
  // Mine as the pool fills (SEND_BATCH transfers = SEND_BATCH / txsPerBlock blocks): a small pool stays fast.
  for (let sent = 0; sent < total; sent += SEND_BATCH) {
    const calls = [];
    const end = Math.min(total, sent + SEND_BATCH);
    for (let i = sent; i < end; i++) {
      const from = accounts[i % accounts.length]!;
      calls.push({
        method: "eth_sendTransaction",
        params: [
          {
            from,
            to: accounts[(i + 1) % accounts.length],
            value: `0x${(i + 1).toString(16)}`,
            gas: `0x${TRANSFER_GAS.toString(16)}`,
            gasPrice: "0x3b9aca00",
            nonce: `0x${Math.floor(i / accounts.length).toString(16)}`,
          },
        ],
      });
    }
    await rpc.batch(calls);
    await rpc.call("anvil_mine", [`0x${Math.ceil((end - sent) / txsPerBlock).toString(16)}`]);
  }
  const head = Number(BigInt(await rpc.call<string>("eth_blockNumber")));
  const last = await rpc.call<{ transactions: string[] }>("eth_getBlockByNumber", [
    `0x${head.toString(16)}`,
    false,
  ]);
  if (head !== blocks || last.transactions.length !== txsPerBlock) {
    throw new Error(
      `chain has ${head} blocks, the last with ${last.transactions.length} txs; expected ${blocks} x ${txsPerBlock}`,
    );
  }
  console.log(
    `chain: ${blocks} blocks x ${txsPerBlock} transfers built in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}

/** Runs the benchmark with command-line `argv`; resolves with the exit code (0 when under 60 s). */
export async function runIndexerBenchmark(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      blocks: { type: "string", default: "10000" },
      "txs-per-block": { type: "string", default: "10" },
      "database-url": {
        type: "string",
        default: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
      },
      "batch-size": { type: "string", default: "100" },
    },
  });
  const blocks = Number(values.blocks);
  const txsPerBlock = Number(values["txs-per-block"]);
  const adminUrl = values["database-url"];
  const name = `strata_bench_indexer_${randomBytes(4).toString("hex")}`;
  const { url, child } = await startAnvil(txsPerBlock);
  const admin = new PgDatabase(adminUrl, 1);
  try {
    await buildChain(url, blocks, txsPerBlock);
    await admin.exec(`CREATE DATABASE ${name}`);
    const db = await openDatabase(adminUrl.replace(/\/[^/]*$/, `/${name}`));
    try {
      const indexer = await Indexer.open({
        rpcUrl: url,
        db,
        wsUrl: null,
        batchSize: Number(values["batch-size"]),
        logger: pino({ level: "warn" }),
        progressIntervalMs: 5_000,
        onProgress: (p) =>
          console.log(`  block ${p.indexedBlock} of ${p.headBlock} (${p.blocksPerSecond} blocks/s)`),
      });
      const started = performance.now();
      const status = await indexer.sync();
      const seconds = (performance.now() - started) / 1000;
      const [row] = await db.query<{ blocks: bigint; txs: bigint; receipts: bigint }>(
        "SELECT (SELECT count(*) FROM blocks)::int8 AS blocks, (SELECT count(*) FROM transactions)::int8 AS txs, (SELECT count(*) FROM receipts)::int8 AS receipts",
      );
      const txs = Number(row!.txs);
      console.log(
        `indexer backfill: ${row!.blocks} blocks, ${txs} transactions, ${row!.receipts} receipts into PostgreSQL in ${seconds.toFixed(1)} s ` +
          `(${Math.round(Number(row!.blocks) / seconds)} blocks/s, ${Math.round(txs / seconds)} tx/s; lag ${status.lag})`,
      );
      const ok = txs === blocks * txsPerBlock && seconds < 60;
      console.log(ok ? "PASS: under 60 s" : "FAIL: target is every transaction indexed in under 60 s");
      return ok ? 0 : 1;
    } finally {
      await db.close();
    }
  } finally {
    child.kill("SIGKILL");
    await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runIndexerBenchmark(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
