/**
 * Gateway overhead: eth_blockNumber at N connections straight to a Strata node, then through
 * `strata gateway` in front of it (Enterprise key, Redis rate limiter on). Reports the gateway's
 * throughput as a fraction of direct and the p99 latency it adds. Targets: >= 0.7x, < 5 ms.
 * The gateway answers eth_blockNumber from its newHeads-fed head cache; the log shows how many calls
 * the cache answered.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { errorNote, type HttpLoadResult, loadMeasurement, runHttpLoad } from "./load.js";
import type { Measurement, Scenario, ScenarioContext } from "./scenarios/types.js";
import { allocatePort, REPO_ROOT, STRATA_CLI } from "./targets.js";

/** Redis the gateway's limiter uses: `BENCH_REDIS_URL`, default the local server. */
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const READY_TIMEOUT_MS = 120_000;
const BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] });

/** Targets of DECISIONS.md / the gateway issue. */
const MIN_RATIO = 0.7;
const MAX_ADDED_P99_MS = 5;

/** A `strata gateway` started by the bench. */
export interface GatewayProcess {
  readonly url: string;
  readonly pid: number;
  readonly command: string;
  stop(): Promise<void>;
}

/** Every gateway still running, killed by PID if the bench exits early. */
const running = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of running)
    if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, "SIGKILL");
});

/** Starts `strata gateway` in front of `upstream`; its limiter uses Redis unless `redis` is false. */
export async function startGateway(
  upstream: string,
  adminToken: string,
  redis = true,
): Promise<GatewayProcess> {
  const port = await allocatePort();
  const datadir = await mkdtemp(join(tmpdir(), "strata-bench-gateway-"));
  const args = [
    STRATA_CLI,
    "gateway",
    "--upstream",
    upstream,
    "--port",
    String(port),
    ...(redis ? ["--redis-url", REDIS_URL] : []),
    "--datadir",
    datadir,
    "--admin-token",
    adminToken,
    "--log-level",
    "warn",
  ];
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  const tail: string[] = [];
  if (child.stderr)
    createInterface({ input: child.stderr }).on("line", (l) => tail.push(l) > 20 && tail.shift());
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      process.kill(child.pid, "SIGTERM");
      const timer = setTimeout(() => child.pid !== undefined && process.kill(child.pid, "SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
    running.delete(child);
    await rm(datadir, { recursive: true, force: true });
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("gateway printed no ready line")), READY_TIMEOUT_MS);
      child.once("exit", (code) => reject(new Error(`gateway exited (code ${code}): ${tail.join(" | ")}`)));
      createInterface({ input: child.stdout! }).on("line", (line) => {
        const match = /^ready (http:\/\/\S+)/.exec(line);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    });
    return { url, pid: child.pid!, command: `node ${args.join(" ").replace(adminToken, "<token>")}`, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Creates an Enterprise-tier API key through the gateway's admin API. */
export async function enterpriseKey(gatewayUrl: string, adminToken: string): Promise<string> {
  const response = await fetch(`${gatewayUrl}/admin/keys`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${adminToken}` },
    body: JSON.stringify({ tier: "enterprise", label: "bench" }),
  });
  if (response.status !== 201)
    throw new Error(`creating a key: HTTP ${response.status} ${await response.text()}`);
  return ((await response.json()) as { key: string }).key;
}

/** `strata_gateway_head_cache_answers_total` from the gateway's /metrics, if it reports it. */
async function headCacheAnswers(gatewayUrl: string): Promise<number | undefined> {
  const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
  const match = /^strata_gateway_head_cache_answers_total (\d+)/m.exec(text);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

function load(url: string, ctx: ScenarioContext): Promise<HttpLoadResult> {
  return runHttpLoad({
    url,
    body: BODY,
    verifyBody: (b) => b.includes('"result"') && !b.includes('"error"'),
    connections: ctx.settings.connections,
    durationSeconds: ctx.settings.durationSeconds,
    warmupSeconds: ctx.settings.warmupSeconds,
  });
}

/** The gateway overhead scenario (Strata only: the gateway fronts a Strata node). */
export const gatewayOverhead: Scenario = {
  name: "gatewayOverhead",
  description:
    "eth_blockNumber through `strata gateway` (Enterprise key, Redis limiter) vs straight to the node: throughput ratio and added p99.",
  node: "shared",
  modes: (target) => (target === "strata" ? ["instant"] : []),
  async run(ctx: ScenarioContext): Promise<Measurement> {
    const adminToken = randomBytes(16).toString("hex");
    const gateway = await startGateway(ctx.node.url, adminToken);
    try {
      ctx.log(`gateway at ${gateway.url}: ${gateway.command}`);
      const key = await enterpriseKey(gateway.url, adminToken);
      // The key travels as the apiKey query parameter: the load generator sends fixed headers.
      const through = `${gateway.url}/rpc?apiKey=${encodeURIComponent(key)}`;
      const sample = await fetch(through, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: BODY,
      });
      const sampleText = await sample.text();
      if (sample.status !== 200 || !sampleText.includes('"result"'))
        throw new Error(`sample through the gateway: HTTP ${sample.status} ${sampleText.slice(0, 200)}`);
      const direct = await load(ctx.node.url, ctx);
      ctx.log(`direct: ${direct.requestsPerSecond.toFixed(0)} req/s, p99 ${direct.p99Ms.toFixed(2)} ms`);
      const proxied = await load(through, ctx);
      const cached = await headCacheAnswers(gateway.url);
      ctx.log(`answered from the head cache: ${cached ?? "unknown"}`);
      const ratio = direct.requestsPerSecond > 0 ? proxied.requestsPerSecond / direct.requestsPerSecond : 0;
      const addedP99 = proxied.p99Ms - direct.p99Ms;
      const verdict = ratio >= MIN_RATIO && addedP99 < MAX_ADDED_P99_MS ? "meets" : "misses";
      return loadMeasurement(
        proxied,
        [
          `${ratio.toFixed(2)}x of direct (${direct.requestsPerSecond.toFixed(0)} req/s), p99 +${addedP99.toFixed(2)} ms: ${verdict} >= ${MIN_RATIO}x and < ${MAX_ADDED_P99_MS} ms`,
          ...errorNote(proxied),
          ...errorNote(direct).map((n) => `direct: ${n}`),
        ],
        {
          gatewayCommand: gateway.command,
          redisUrl: REDIS_URL,
          ratio,
          addedP99Ms: addedP99,
          headCacheAnswers: cached,
          direct: {
            requestsPerSecond: direct.requestsPerSecond,
            p50Ms: direct.p50Ms,
            p99Ms: direct.p99Ms,
            errors: direct.errors,
          },
          connections: ctx.settings.connections,
        },
      );
    } finally {
      await gateway.stop();
    }
  },
};
