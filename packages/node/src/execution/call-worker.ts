/**
 * The program of an `eth_call` worker thread (see {@link CallWorkerPool}): it opens the node's LMDB
 * store read-only, keeps its own decoded blocks, trie node cache and head state, and answers each
 * call it is sent with the same {@link CallExecutor} the main thread uses. Loaded only as a worker.
 */
import { isMainThread, type MessagePort, parentPort, workerData } from "node:worker_threads";
import type { Block } from "@ethereumjs/block";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { BusyError, ExecutionError, RevertError, RunStoppedError } from "../errors/domain-errors.js";
import { ChainStore } from "../storage/chain-store.js";
import { LmdbKV } from "../storage/lmdb-kv.js";
import { TrieDatabase } from "../storage/trie-db.js";
import { CallExecutor } from "./call-executor.js";
import {
  type CallWorkerAnswer,
  type CallWorkerData,
  type CallWorkerJob,
  isCancelled,
} from "./call-worker-messages.js";
import { ChainView } from "./chain-view.js";
import { createChainCommon } from "./common.js";
import { type RunLimit, runLimit } from "./run-limits.js";
import { StateFactory } from "./state-factory.js";

/** States kept warm per state root (the head, and the block before it while calls still name it). */
const WARM_STATES = 2;

async function serve(port: MessagePort, settings: CallWorkerData): Promise<void> {
  const cancels = new Int32Array(settings.cancels);
  const kv = new LmdbKV(settings.chaindata);
  const common = await createChainCommon(settings.network);
  const states = new StateFactory(new TrieDatabase(kv), common);
  const store = new ChainStore(kv, common);
  const warm = new Map<string, MerkleStateManager>();
  const stateAt = (block: Block): MerkleStateManager => {
    const root = Buffer.from(block.header.stateRoot).toString("hex");
    let state = warm.get(root);
    if (!state) {
      state = states.at(block.header.stateRoot, "lru");
      if (warm.size >= WARM_STATES) warm.delete(warm.keys().next().value as string);
      warm.set(root, state);
    }
    return state;
  };
  const executor = new CallExecutor(
    common,
    stateAt,
    new ChainView(store),
    settings.gasCap,
    settings.maxQueueWaitMs,
    { cacheResults: false },
  );
  let closing = false;
  let running = 0;
  const closeWhenIdle = (): void => {
    if (!closing || running > 0) return;
    void kv.close().finally(() => port.close());
  };
  port.on("message", (job: CallWorkerJob | "close") => {
    if (job === "close") {
      closing = true;
      closeWhenIdle();
      return;
    }
    running++;
    const limit = runLimit(job.timeoutMs, undefined, () => isCancelled(cancels, job.id));
    void answer(job, store, executor, limit).then((reply) => {
      running--;
      port.postMessage(reply);
      closeWhenIdle();
    });
  });
  port.postMessage({ ready: true });
}

async function answer(
  job: CallWorkerJob,
  store: ChainStore,
  executor: CallExecutor,
  limit: RunLimit,
): Promise<CallWorkerAnswer> {
  const block = store.blockByHash(job.blockHash);
  if (!block) return { id: job.id, kind: "unavailable" };
  try {
    const outcome = await executor.execute(job.request, block, limit);
    if ("ok" in outcome) return { id: job.id, kind: "ok", data: outcome.ok };
    const { error } = outcome;
    if (error instanceof RevertError)
      return { id: job.id, kind: "reverted", reason: error.reason, data: error.data };
    return { id: job.id, kind: "failed", message: error.message };
  } catch (error) {
    if (error instanceof RunStoppedError) return { id: job.id, kind: "stopped", reason: error.reason };
    if (error instanceof BusyError)
      return { id: job.id, kind: "busy", message: error.message, retryAfterMs: error.retryAfterMs };
    if (error instanceof ExecutionError) return { id: job.id, kind: "refused", message: error.message };
    return { id: job.id, kind: "crashed", message: error instanceof Error ? error.message : String(error) };
  }
}

if (!isMainThread && parentPort) void serve(parentPort, workerData as CallWorkerData);
