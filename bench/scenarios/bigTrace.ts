import type { Hex } from "viem";
import { RpcClient } from "../rpc.js";
import { deployLooper, probe } from "./attack.js";
import type { Measurement, Scenario, ScenarioContext } from "./types.js";

/** The gas of the traced loop: about 86,000 steps logged with their stacks, a 7 MB answer. */
const TRACED_GAS = "0xf4240";

/** Sends the struct-logged trace again as soon as it is answered, until `stop`; sizes and times. */
async function traceLoop(url: string, looper: Hex, stop: { done: boolean }) {
  const client = new RpcClient(url, { maxSockets: 1, timeoutMs: 120_000 });
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "debug_traceCall",
    params: [{ to: looper, gas: TRACED_GAS }, "latest", {}],
  });
  const answers: { ms: number; bytes: number; ok: boolean }[] = [];
  try {
    while (!stop.done) {
      const sent = performance.now();
      const { text } = await client.post(body);
      answers.push({ ms: performance.now() - sent, bytes: text.length, ok: text.includes('"structLogs"') });
    }
  } finally {
    client.close();
  }
  return answers;
}

/**
 * A prober measures `eth_blockNumber` / `eth_getBalance` latency (as in `attack`), first alone, then
 * while one client asks again and again for the default struct logger's trace of 1M gas of a call
 * loop (7 MB of JSON): what a caller asking for large answers costs everyone else. Anvil runs it too.
 */
export const bigTrace: Scenario = {
  name: "bigTrace",
  description:
    "eth_blockNumber/eth_getBalance latency while one client keeps asking for a 7 MB struct-logger debug_traceCall, against the same probe without it.",
  node: "fresh",
  modes: () => ["instant"],
  async run(ctx: ScenarioContext): Promise<Measurement> {
    const looper = await deployLooper(ctx);
    const seconds = Math.max(ctx.settings.durationSeconds, 10);
    ctx.log(`probing ${seconds} s alone`);
    const quiet = await probe(ctx.node.url, seconds);
    ctx.log(`probing ${seconds} s beside the traces`);
    const stop = { done: false };
    const tracing = traceLoop(ctx.node.url, looper, stop);
    const loud = await probe(ctx.node.url, seconds);
    stop.done = true;
    const answers = await tracing;
    const ok = answers.filter((a) => a.ok);
    const mb = ok.length ? ok[0]!.bytes / 1e6 : 0;
    const traceMs = ok.length ? ok.reduce((sum, a) => sum + a.ms, 0) / ok.length : Number.NaN;
    return {
      unit: "req/s",
      throughput: loud.requests / loud.seconds,
      p50Ms: loud.p50Ms,
      p99Ms: loud.p99Ms,
      errors: loud.errors + (answers.length - ok.length),
      notes: [
        `alone: p99 ${quiet.p99Ms.toFixed(2)} ms, max ${quiet.maxMs.toFixed(1)} ms`,
        `beside the traces: max ${loud.maxMs.toFixed(1)} ms`,
        `${ok.length} traces of ${mb.toFixed(1)} MB, ${traceMs.toFixed(0)} ms each`,
      ],
      details: { quiet, beside: loud, traces: answers },
    };
  },
};
