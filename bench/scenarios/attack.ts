import { createPublicClient, createWalletClient, defineChain, type Hex, http, parseGwei } from "viem";
import { CALL_LOOPER_CODE } from "../../packages/node/src/testing/heavy-code.js";
import { DEV_ACCOUNT_0, devAccount0 } from "../accounts.js";
import { percentile } from "../load.js";
import { hexToNumber, RpcClient, sleep } from "../rpc.js";
import { CHAIN_ID } from "../targets.js";
import type { Measurement, Scenario, ScenarioContext } from "./types.js";

/** Concurrent probers. */
const PROBERS = 4;
/** Each prober sends a request every this many milliseconds (a latency probe, not a load). */
const PROBE_INTERVAL_MS = 5;
/** The gas of the simulated loop: a whole 50M-gas block. */
const SIMULATED_GAS = "0x2faf080";

/** The heaviest requests a keyless caller may send: each runs until the node stops it. */
function attackRequests(looper: Hex): { method: string; params: unknown[] }[] {
  return [
    // The client asks for 30 s; the node caps a trace at its maximum (5 s by default).
    {
      method: "debug_traceCall",
      params: [{ to: looper }, "latest", { tracer: "callTracer", timeout: "30s" }],
    },
    {
      method: "eth_simulateV1",
      params: [
        {
          blockStateCalls: [
            { blockOverrides: { gasLimit: SIMULATED_GAS }, calls: [{ to: looper, gas: SIMULATED_GAS }] },
          ],
        },
        "latest",
      ],
    },
    // At the node's gas cap (50M), stopped by its 5 s execution limit.
    { method: "eth_call", params: [{ to: looper }, "latest"] },
  ];
}

/** Deploys the endless call loop (CALL_LOOPER_CODE) from dev account 0; its address. */
export async function deployLooper(ctx: ScenarioContext): Promise<Hex> {
  const chain = defineChain({
    id: CHAIN_ID,
    name: "bench",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [ctx.node.url] } },
  });
  const transport = http(ctx.node.url, { batch: false, retryCount: 0 });
  const wallet = createWalletClient({ account: devAccount0(), chain, transport });
  const client = createPublicClient({ chain, transport });
  const hash = await wallet.sendTransaction({
    data: CALL_LOOPER_CODE,
    gas: 100_000n,
    maxFeePerGas: parseGwei("100"),
    maxPriorityFeePerGas: parseGwei("1"),
  });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 100, timeout: 60_000 });
  if (receipt.status !== "success" || !receipt.contractAddress) throw new Error("looper deployment failed");
  return receipt.contractAddress;
}

/** What one probe phase measured. */
export interface ProbePhase {
  readonly requests: number;
  readonly errors: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly blocksPerSecond: number;
  readonly seconds: number;
}

/**
 * Probes `eth_blockNumber` and `eth_getBalance` (alternating) from {@link PROBERS} connections, each
 * a request every {@link PROBE_INTERVAL_MS} (about 800 req/s in all: the node's responsiveness, not
 * its saturation), for `seconds`, and counts the blocks produced meanwhile.
 */
export async function probe(url: string, seconds: number): Promise<ProbePhase> {
  const client = new RpcClient(url, { maxSockets: PROBERS });
  const latencies: number[] = [];
  let errors = 0;
  try {
    const firstBlock = hexToNumber(await client.call<string>("eth_blockNumber"));
    const started = performance.now();
    const end = started + seconds * 1000;
    await Promise.all(
      Array.from({ length: PROBERS }, async (_, prober) => {
        for (let n = prober; performance.now() < end; n++) {
          const sent = performance.now();
          try {
            if (n % 2 === 0) await client.call("eth_blockNumber");
            else await client.call("eth_getBalance", [DEV_ACCOUNT_0, "latest"]);
            latencies.push(performance.now() - sent);
          } catch {
            errors++;
          }
          await sleep(Math.max(0, sent + PROBE_INTERVAL_MS - performance.now()));
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    const lastBlock = hexToNumber(await client.call<string>("eth_blockNumber"));
    const sorted = Float64Array.from(latencies).sort();
    return {
      requests: latencies.length,
      errors,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      maxMs: sorted[sorted.length - 1] ?? 0,
      blocksPerSecond: (lastBlock - firstBlock) / elapsed,
      seconds: elapsed,
    };
  } finally {
    client.close();
  }
}

/** Sends each attack request in a loop of its own (the next once the last is answered) until `stop`. */
async function runAttack(url: string, looper: Hex, stop: { done: boolean }) {
  const client = new RpcClient(url, { maxSockets: 3, timeoutMs: 120_000 });
  const answered = new Map<string, { ok: number; refused: number; stopped: number; other: number }>();
  try {
    await Promise.all(
      attackRequests(looper).map(async ({ method, params }) => {
        const counts = { ok: 0, refused: 0, stopped: 0, other: 0 };
        answered.set(method, counts);
        while (!stop.done) {
          const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
          const { text } = await client.post(body);
          const parsed = JSON.parse(text) as { error?: { code: number; message: string } };
          if (!parsed.error) counts.ok++;
          else if (parsed.error.code === -32005) counts.refused++;
          else if (/timeout|out of gas/.test(parsed.error.message)) counts.stopped++;
          else counts.other++;
        }
      }),
    );
  } finally {
    client.close();
  }
  return Object.fromEntries(answered);
}

/**
 * One client keeps the heaviest allowed `debug_traceCall` (a 30 s client timeout on an endless
 * loop), `eth_simulateV1` (a 50M-gas loop) and `eth_call` (an endless loop at the gas cap) running
 * in parallel, while another measures `eth_blockNumber` / `eth_getBalance` latency and the block
 * rate (1 s interval mining); the same probe first runs without the attack. The target: p99 under
 * attack at most 2x the p99 without.
 */
export const attack: Scenario = {
  name: "attack",
  description:
    "eth_blockNumber/eth_getBalance latency and block rate while endless-loop debug_traceCall, eth_simulateV1 and eth_call run at their limits, against the same probe without them.",
  node: "fresh",
  // Only Strata bounds these requests: anvil would run the loops to the end of their gas.
  modes: (target) => (target === "strata" ? ["interval"] : []),
  remark: () => "1 s interval mining; throughput and latency are the probe's under attack",
  async run(ctx: ScenarioContext): Promise<Measurement> {
    const looper = await deployLooper(ctx);
    const seconds = Math.max(ctx.settings.durationSeconds, 10);
    ctx.log(`probing ${seconds} s without attack`);
    const quiet = await probe(ctx.node.url, seconds);
    ctx.log(`probing ${seconds} s under attack`);
    const stop = { done: false };
    const attacking = runAttack(ctx.node.url, looper, stop);
    // Let every attack request start before measuring.
    await sleep(500);
    const loud = await probe(ctx.node.url, seconds);
    stop.done = true;
    const attackAnswers = await attacking;
    const ratio = loud.p99Ms / quiet.p99Ms;
    return {
      unit: "req/s",
      throughput: loud.requests / loud.seconds,
      p50Ms: loud.p50Ms,
      p99Ms: loud.p99Ms,
      errors: loud.errors,
      notes: [
        `without attack: ${(quiet.requests / quiet.seconds).toFixed(0)} req/s, p50 ${quiet.p50Ms.toFixed(2)} ms, p99 ${quiet.p99Ms.toFixed(2)} ms, ${quiet.blocksPerSecond.toFixed(2)} blocks/s`,
        `under attack: p99 ${ratio.toFixed(2)}x, ${loud.blocksPerSecond.toFixed(2)} blocks/s`,
      ],
      details: { quiet, underAttack: loud, p99Ratio: ratio, attackAnswers, probers: PROBERS },
    };
  },
};
