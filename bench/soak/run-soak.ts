/**
 * Soak benchmark: hours of steady mixed load on a Strata dev node, sampling each process's memory
 * and cache sizes once a minute, to show that memory levels off.
 *
 *   npm run bench -- --soak [SECONDS] [--variant node|gateway|both] [--sample-every SECONDS]
 *                       [--warmup-blocks N]
 *
 * `node`: the load straight to a dev node (instant mining). `gateway`: the same load through
 * `strata gateway` (memory rate limiter, an Enterprise key) in front of a dev node, with
 * `strata indexer` following the node into a scratch PostgreSQL database.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { PgDatabase } from "@strata/db";
import { enterpriseKey, startGateway } from "../gateway-overhead.js";
import { commandLine, machineInfo } from "../report.js";
import { sleep } from "../rpc.js";
import { allocatePort, BENCH_DIR, killAllNodes, REPO_ROOT, STRATA_CLI, startNode } from "../targets.js";
import { type LoadTally, startMixedLoad } from "./mixed-load.js";
import { metricSeries, rssAnonBytes, type Sample, type SeriesTrend, trends } from "./series.js";

const USAGE = `Usage: npm run bench -- --soak [SECONDS] [options]

  --soak SECONDS            length of the load per variant (default: 3600)
  --variant node|gateway|both
                            straight to a node, through the gateway with the indexer following, or
                            both one after the other (default: node)
  --sample-every SECONDS    sampling interval (default: 60)
  --warmup-blocks N         empty blocks mined (anvil_mine) before the load starts, so that the caches
                            filled block by block are full when sampling begins; the indexer, when
                            there is one, catches up first (default: 10500, 0 for none)
  --report FILE             print the report of a saved run (bench/results/soak-*.json) and exit
  --database-url URL        PostgreSQL server for the indexer's scratch database
                            (default: DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres)`;

/** A process the soak samples: its PID and, when it has one, its /metrics URL. */
interface Watched {
  readonly name: string;
  readonly pid: number;
  readonly metricsUrl: string;
}

/** What one variant measured. */
interface VariantResult {
  readonly variant: string;
  readonly seconds: number;
  readonly tally: LoadTally;
  readonly minedTransfers: number;
  readonly samples: Record<string, Sample[]>;
  readonly trends: Record<string, SeriesTrend[]>;
}

const MIB = 1024 * 1024;

/** What to undo for the variant running now (processes, the scratch database), newest first. */
const cleanups: (() => Promise<void>)[] = [];

async function cleanUp(): Promise<void> {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => {});
}

async function scrape(url: string): Promise<Record<string, number>> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    return metricSeries(await response.text());
  } catch {
    return {};
  }
}

async function sampleAll(watched: readonly Watched[], atSeconds: number, into: Record<string, Sample[]>) {
  for (const w of watched) {
    const values = await scrape(w.metricsUrl);
    const rss = await rssAnonBytes(w.pid);
    if (rss !== undefined) values.rssAnonBytes = rss;
    const list = into[w.name] ?? [];
    list.push({ atSeconds, values });
    into[w.name] = list;
  }
}

/** `strata indexer` following `rpcUrl` into `databaseUrl`, with its /metrics on a bench port. */
async function startIndexer(rpcUrl: string, databaseUrl: string) {
  const port = await allocatePort();
  const args = [STRATA_CLI, "indexer", "--rpc", rpcUrl, "--database-url", databaseUrl];
  args.push("--metrics-port", String(port), "--log-level", "warn");
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const tail: string[] = [];
  if (child.stderr)
    createInterface({ input: child.stderr }).on("line", (l) => tail.push(l) > 20 && tail.shift());
  const metricsUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("indexer printed no ready line")), 60_000);
    child.once("exit", (code) => reject(new Error(`indexer exited (code ${code}): ${tail.join(" | ")}`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const match = /^ready (http:\/\/\S+)/.exec(line);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
  return {
    pid: child.pid!,
    metricsUrl,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      process.kill(child.pid!, "SIGTERM");
      const timer = setTimeout(() => child.pid !== undefined && process.kill(child.pid, "SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Mines `blocks` empty blocks on the node, then waits until the indexer (if any) has indexed them. */
async function warmUp(url: string, blocks: number, indexerMetricsUrl: string | undefined): Promise<void> {
  if (blocks === 0) return;
  const { RpcClient, hexToNumber } = await import("../rpc.js");
  const rpc = new RpcClient(url, { timeoutMs: 120_000 });
  const started = performance.now();
  try {
    for (let left = blocks; left > 0; left -= 1_000) {
      await rpc.call("anvil_mine", [`0x${Math.min(left, 1_000).toString(16)}`]);
    }
    const head = hexToNumber(await rpc.call("eth_blockNumber", []));
    if (indexerMetricsUrl !== undefined) {
      for (;;) {
        const text = await fetch(indexerMetricsUrl).then(
          (r) => r.text(),
          () => "",
        );
        const indexed = Number(/^strata_indexer_indexed_block (\d+)/m.exec(text)?.[1] ?? 0);
        if (indexed >= head) break;
        await sleep(1_000);
      }
    }
    console.log(
      `warm-up: ${blocks} empty blocks, head ${head}, ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
  } finally {
    rpc.close();
  }
}

async function minedNonces(url: string): Promise<number> {
  const { devAccounts } = await import("../accounts.js");
  const { RpcClient, hexToNumber } = await import("../rpc.js");
  const rpc = new RpcClient(url);
  try {
    const counts = await Promise.all(
      devAccounts()
        .slice(5, 10)
        .map(async (a) => hexToNumber(await rpc.call("eth_getTransactionCount", [a.address, "latest"]))),
    );
    return counts.reduce((s, n) => s + n, 0);
  } finally {
    rpc.close();
  }
}

async function runVariant(
  variant: "node" | "gateway",
  seconds: number,
  sampleEvery: number,
  databaseUrl: string,
  warmupBlocks: number,
): Promise<VariantResult> {
  const node = await startNode("strata", "instant");
  cleanups.push(() => node.stop());
  console.log(`node pid ${node.pid}: ${node.command}`);
  const watched: Watched[] = [{ name: "node", pid: node.pid, metricsUrl: `${node.url}/metrics` }];
  let endpoints = { http: node.url, ws: node.url.replace(/^http/, "ws") };
  let indexerMetricsUrl: string | undefined;
  const admin = new PgDatabase(databaseUrl, 1);
  const dbName = `strata_soak_${randomBytes(4).toString("hex")}`;
  try {
    if (variant === "gateway") {
      const token = randomBytes(16).toString("hex");
      const gateway = await startGateway(node.url, token, false);
      cleanups.push(() => gateway.stop());
      console.log(`gateway pid ${gateway.pid}: ${gateway.command}`);
      const key = encodeURIComponent(await enterpriseKey(gateway.url, token));
      endpoints = {
        http: `${gateway.url}/rpc?apiKey=${key}`,
        ws: `${gateway.url.replace(/^http/, "ws")}/ws?apiKey=${key}`,
      };
      watched.push({ name: "gateway", pid: gateway.pid, metricsUrl: `${gateway.url}/metrics` });
      await admin.exec(`CREATE DATABASE ${dbName}`);
      cleanups.push(async () => {
        await admin.exec(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
      });
      const indexer = await startIndexer(node.url, databaseUrl.replace(/\/[^/]*$/, `/${dbName}`));
      cleanups.push(() => indexer.stop());
      console.log(`indexer pid ${indexer.pid}, metrics ${indexer.metricsUrl}`);
      watched.push({ name: "indexer", pid: indexer.pid, metricsUrl: indexer.metricsUrl });
      indexerMetricsUrl = indexer.metricsUrl;
    }
    await warmUp(node.url, warmupBlocks, indexerMetricsUrl);
    const samples: Record<string, Sample[]> = {};
    const load = await startMixedLoad(endpoints);
    const started = performance.now();
    const elapsed = () => (performance.now() - started) / 1000;
    await sampleAll(watched, 0, samples);
    for (let next = sampleEvery; next <= seconds; next += sampleEvery) {
      await sleep(Math.max(0, (next - elapsed()) * 1000));
      await sampleAll(watched, Math.round(elapsed()), samples);
      const node = samples.node!.at(-1)!.values;
      const errors = Object.values(load.tally.errors).reduce((s, n) => s + n, 0);
      console.log(
        `  ${Math.round(elapsed())} s: node RssAnon ${((node.rssAnonBytes ?? 0) / MIB).toFixed(1)} MiB, heap used ${((node.heapUsedBytes ?? 0) / MIB).toFixed(1)} MiB, errors ${errors}`,
      );
    }
    await load.stop();
    await sleep(2_000);
    const mined = await minedNonces(node.url);
    const result: VariantResult = {
      variant,
      seconds,
      tally: load.tally,
      minedTransfers: mined,
      samples,
      trends: Object.fromEntries(Object.entries(samples).map(([name, s]) => [name, trends(s)])),
    };
    return result;
  } finally {
    await cleanUp();
    await admin.close();
  }
}

function formatValue(series: string, value: number): string {
  return series.endsWith("Bytes") ? `${(value / MIB).toFixed(1)} MiB` : String(Math.round(value));
}

function report(result: VariantResult): string[] {
  const lines = [`## ${result.variant} (${result.seconds} s)`, ""];
  const sent = Object.entries(result.tally.sent)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
  const errors = Object.entries(result.tally.errors)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
  lines.push(`sent: ${sent}`, `errors: ${errors || "none"}`, `transfers mined: ${result.minedTransfers}`);
  for (const sample of result.tally.errorSamples.slice(0, 5)) lines.push(`  ${sample}`);
  lines.push(
    "",
    "Memory must level off (last third's slope at most a quarter of the first third's) and should grow by",
    "under 5 % over the last half; a cache may grow while it fills, but never past its bound.",
    "",
    "| Process | Series | First | Last | Max | Bound | Slope first third /min | Slope last third /min | Last half | Verdict |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  );
  const isCache = (t: SeriesTrend) => t.series.startsWith("cache:");
  for (const [name, list] of Object.entries(result.trends)) {
    // Memory first, then the caches.
    for (const t of [...list].sort((a, b) => Number(isCache(a)) - Number(isCache(b)))) {
      const fmt = (v: number) => formatValue(t.series, v);
      const verdict = !isCache(t)
        ? `${t.levelsOff ? "levels off" : "GROWING"}, ${t.meetsTarget ? "< 5 %" : ">= 5 %"} over last half`
        : t.bound === undefined
          ? "no bound"
          : t.max > t.bound
            ? "EXCEEDS BOUND"
            : "within bound";
      lines.push(
        `| ${name} | ${t.series} | ${fmt(t.first)} | ${fmt(t.last)} | ${fmt(t.max)} | ${t.bound === undefined ? "–" : fmt(t.bound)} | ${fmt(t.slopeFirstThirdPerMinute)} | ${fmt(t.slopeLastThirdPerMinute)} | ${t.lastHalfGrowthPercent.toFixed(1)} % | ${verdict} |`,
      );
    }
  }
  return lines;
}

/** `npm run bench -- --soak …`: runs the soak and prints its report; exit code 1 when a series keeps growing. */
export async function runSoak(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      soak: { type: "boolean" },
      variant: { type: "string", default: "node" },
      "sample-every": { type: "string", default: "60" },
      "warmup-blocks": { type: "string", default: "10500" },
      report: { type: "string" },
      "database-url": {
        type: "string",
        default: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
      },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.report !== undefined) {
    const saved = JSON.parse(await readFile(values.report, "utf8")) as { results: VariantResult[] };
    for (const result of saved.results) {
      const withTrends = {
        ...result,
        trends: Object.fromEntries(Object.entries(result.samples).map(([name, s]) => [name, trends(s)])),
      };
      console.log(`${report(withTrends).join("\n")}\n`);
    }
    return 0;
  }
  const seconds = positionals[0] === undefined ? 3600 : Number(positionals[0]);
  const sampleEvery = Number(values["sample-every"]);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`--soak SECONDS: got "${positionals[0]}"`);
  if (!Number.isFinite(sampleEvery) || sampleEvery <= 0) throw new Error("--sample-every must be positive");
  const warmupBlocks = Number(values["warmup-blocks"]);
  if (!Number.isInteger(warmupBlocks) || warmupBlocks < 0)
    throw new Error(`--warmup-blocks: got "${values["warmup-blocks"]}"`);
  const variants = values.variant === "both" ? (["node", "gateway"] as const) : [values.variant];
  for (const v of variants) if (v !== "node" && v !== "gateway") throw new Error(`--variant: got "${v}"`);
  const machine = machineInfo();
  console.log(
    `# Strata soak: ${seconds} s per variant (${variants.join(", ")}), a sample every ${sampleEvery} s`,
  );
  console.log(`command: ${commandLine()}`);
  console.log(
    `machine: nproc ${machine.nproc}, ${machine.cpu}, node ${machine.node}${machine.commit ? `, commit ${machine.commit}` : ""}`,
  );
  // glibc's allocator settings change how much memory the processes keep (docs/operations.md).
  const malloc = Object.entries(process.env).filter(([name]) => name.startsWith("MALLOC_"));
  if (malloc.length > 0) console.log(`environment: ${malloc.map(([n, v]) => `${n}=${v}`).join(" ")}`);
  const onSignal = () => {
    void cleanUp().finally(() => {
      killAllNodes();
      process.exit(130);
    });
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const results: VariantResult[] = [];
  let growing = false;
  for (const variant of variants) {
    const result = await runVariant(
      variant as "node" | "gateway",
      seconds,
      sampleEvery,
      values["database-url"]!,
      warmupBlocks,
    );
    results.push(result);
    const lines = report(result);
    console.log(`\n${lines.join("\n")}`);
    // Memory must level off; a cache may grow as it fills, but never past its bound.
    growing ||= Object.values(result.trends).some((list) =>
      list.some((t) =>
        t.series.startsWith("cache:") ? t.bound !== undefined && t.max > t.bound : !t.levelsOff,
      ),
    );
  }
  const dir = join(BENCH_DIR, "results");
  await mkdir(dir, { recursive: true });
  const file = join(dir, `soak-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  await writeFile(file, JSON.stringify({ command: commandLine(), machine, results }, null, 2));
  console.log(`\nresults: ${file}`);
  return growing ? 1 : 0;
}
