/**
 * The program of an execution worker thread (started by {@link CallWorkerPool}): it serves the
 * jobs the pool posts with {@link serveExecutionJobs}, tracing the blocks of a proof-of-stake network
 * with the consensus engine's stored-block hooks. Loaded only as a worker.
 */
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import type { NetworkFile } from "./config/network.js";
import { PosEngine } from "./consensus/engine.js";
import { type ReplayConsensus, serveExecutionJobs } from "./execution/worker/call-worker.js";
import type { CallWorkerData } from "./execution/worker/call-worker-messages.js";
import { DISMISSED, PRELOADED } from "./execution/worker/worker-preload.js";

/**
 * The engine's hooks for replaying stored blocks on a proof-of-stake network (no seal checked again),
 * and the active sets the node announces with its blocks, taken into that engine; none on a network
 * without consensus.
 */
function replayConsensusOf(network: NetworkFile): ReplayConsensus | undefined {
  if (!network.consensus || !network.system) return undefined;
  const engine = new PosEngine(network, { signers: new Map(), waitForTimeouts: false });
  return {
    hooks: engine.storedBlockHooks.bind(engine),
    activeSets: { name: "active_validator_sets", unit: "entries", ...engine.activeSetCache },
    rememberActiveSetAfter: (stateRoot, set) => engine.rememberActiveSetAfter(stateRoot, set),
  };
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  // Started ahead of the node (execution/worker/worker-preload.ts): the settings come by message.
  if (workerData === PRELOADED)
    port.once("message", (data: CallWorkerData | typeof DISMISSED) => {
      if (data === DISMISSED) port.close();
      else void serveExecutionJobs(port, data, replayConsensusOf);
    });
  else void serveExecutionJobs(port, workerData as CallWorkerData, replayConsensusOf);
}
