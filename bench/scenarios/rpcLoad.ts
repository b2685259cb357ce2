import { errorNote, loadMeasurement, runHttpLoad } from "../load.js";
import { RpcClient } from "../rpc.js";
import type { Measurement, Scenario, ScenarioContext } from "./types.js";

export interface RpcLoadSpec {
  name: string;
  description: string;
  /** Prepare state if needed and return the single request to hammer. */
  request(ctx: ScenarioContext): Promise<{ method: string; params: unknown[] }>;
  /**
   * Validate the parsed `result` of a sample response (throw if wrong) and return
   * a fragment every response body must contain, checked cheaply during the load.
   */
  expect(result: unknown, ctx: ScenarioContext): string;
  /** Connections of this load, when not the run's `--connections` (a latency rather than a throughput measure). */
  connections?: number;
}

/** A read scenario: one fixed JSON-RPC request at N keep-alive connections. */
export function rpcLoadScenario(spec: RpcLoadSpec): Scenario {
  return {
    name: spec.name,
    description: spec.description,
    node: "shared",
    repeatable: true,
    modes: () => ["instant"],
    async run(ctx: ScenarioContext): Promise<Measurement> {
      const { method, params } = await spec.request(ctx);
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });

      // Validate one response end to end before loading the server.
      const rpc = new RpcClient(ctx.node.url, { maxSockets: 1 });
      let fragment: string;
      try {
        const { status, text } = await rpc.post(body);
        if (status !== 200) throw new Error(`sample ${method}: HTTP ${status}: ${text.slice(0, 200)}`);
        const parsed = JSON.parse(text) as { result?: unknown; error?: { message?: string } };
        if (parsed.error) throw new Error(`sample ${method}: error ${JSON.stringify(parsed.error)}`);
        if (!("result" in parsed) || parsed.result === null) {
          throw new Error(`sample ${method}: no result in ${text.slice(0, 200)}`);
        }
        fragment = spec.expect(parsed.result, ctx);
        ctx.log(`sample ${method} -> ${JSON.stringify(parsed.result)}`);
      } finally {
        rpc.close();
      }

      const load = await runHttpLoad({
        url: ctx.node.url,
        body,
        verifyBody: (b) => b.includes(fragment) && !b.includes('"error"'),
        connections: spec.connections ?? ctx.settings.connections,
        durationSeconds: ctx.settings.durationSeconds,
        warmupSeconds: ctx.settings.warmupSeconds,
      });
      return loadMeasurement(load, errorNote(load), {
        method,
        params,
        connections: spec.connections ?? ctx.settings.connections,
        meanMs: load.meanMs,
        errorBreakdown: load.breakdown,
      });
    },
  };
}

export function assertHexQuantity(value: unknown, what: string): string {
  if (typeof value !== "string" || !/^0x(0|[1-9a-f][0-9a-f]*)$/.test(value)) {
    throw new Error(`${what}: expected a hex quantity, got ${JSON.stringify(value)}`);
  }
  return value;
}
