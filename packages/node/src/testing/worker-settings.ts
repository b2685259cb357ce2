import { join } from "node:path";
import { DEFAULT_TRACE_LIMITS } from "../execution/tracing/trace-options.js";
import type { CallWorkerSettings } from "../execution/worker/call-worker-messages.js";
import type { TestNode } from "./test-node.js";

/**
 * The settings of execution workers over the store of `t`, a test node started with `datadir`: what
 * the node gives its own workers, for a pool a test makes beside them.
 */
export function workerSettingsOf(t: TestNode, datadir: string): CallWorkerSettings {
  const { config } = t.node;
  return {
    chaindata: join(datadir, "chaindata"),
    network: config.network,
    gasCap: config.rpc.gasCap,
    maxQueueWaitMs: config.rpc.maxQueueWaitMs,
    evmTimeoutMs: config.rpc.evmTimeoutMs,
    traceLimits: DEFAULT_TRACE_LIMITS,
  };
}
