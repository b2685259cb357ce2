import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CallRequest } from "@strata/protocol";
import type { Address } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpc, viemClients } from "../../e2e/clients.js";
import type { PendingContext } from "../../producer/pending-execution.js";
import { CALL_LOOPER_CODE } from "../../testing/heavy-code.js";
import { startTestNode, type TestNode } from "../../testing/test-node.js";
import { workerSettingsOf } from "../../testing/worker-settings.js";
import { runLimit } from "../evm/run-limits.js";
import type { StorageCacheBounds } from "../state/chain-storage.js";
import { CallWorkerPool } from "./call-worker-pool.js";

/** Decoded blocks one worker keeps (the store's block cache). */
const BLOCK_CACHE_ENTRIES = 512;
const WORKERS = 1;

let datadir: string;
let t: TestNode;

beforeAll(async () => {
  datadir = mkdtempSync(join(tmpdir(), "strata-worker-caches-"));
  t = await startTestNode({ datadir, rpc: { callWorkers: WORKERS, evmTimeoutMs: 3_000 } });
});

afterAll(async () => {
  await t?.stop();
  rmSync(datadir, { recursive: true, force: true });
});

/** `strata_cache_size` and `strata_cache_bound` of every cache in the node's /metrics. */
async function caches(): Promise<Map<string, { size: number; bound: number }>> {
  const text = await (await fetch(`${t.url}/metrics`)).text();
  const found = new Map<string, { size: number; bound: number }>();
  for (const line of text.split("\n")) {
    const match = /^strata_cache_(size|bound)\{cache="([^"]+)"[^}]*\} (\S+)$/.exec(line);
    if (!match) continue;
    const [, kind, name, value] = match;
    const entry = found.get(name!) ?? { size: Number.NaN, bound: Number.NaN };
    entry[kind as "size" | "bound"] = Number(value);
    found.set(name!, entry);
  }
  return found;
}

/** One worker's sizes and bounds, as `pool` reports them once asked. */
async function poolCaches(pool: CallWorkerPool): Promise<Map<string, { size: number; bound: number }>> {
  await pool.refreshSizes(30_000);
  return new Map(pool.boundedStructures().map(({ name, bound, size }) => [name, { size: size(), bound }]));
}

/** Calls handed to the workers so far (`strata_call_worker_calls_total`). */
async function workerCalls(): Promise<number> {
  const text = await (await fetch(`${t.url}/metrics`)).text();
  return Number(/^strata_call_worker_calls_total (\S+)$/m.exec(text)?.[1]);
}

/** A pool of `workers` of its own over the test node's store, started. */
async function startPool(workers: number, cacheBounds?: StorageCacheBounds): Promise<CallWorkerPool> {
  const settings = workerSettingsOf(t, datadir);
  const pool = new CallWorkerPool(cacheBounds ? { ...settings, cacheBounds } : settings, workers);
  await pool.ready();
  return pool;
}

/** The header-only pending block after the test node's head, named `key`. */
function nextHeaderContext(key: string): PendingContext {
  const head = t.node.chain.head;
  return {
    key,
    parentHash: head.hash(),
    timestamp: head.header.timestamp + 1n,
    coinbase: new Uint8Array(20),
    transactions: [],
    edits: [],
    proposers: undefined,
  };
}

/** The header-only pending blocks `pool`'s workers keep, once at least one has made one (or after 5 s). */
async function headerBlocksMade(pool: CallWorkerPool): Promise<number> {
  let made = 0;
  for (let i = 0; i < 100 && made === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    made = (await poolCaches(pool)).get("worker_pending_header_blocks")!.size;
  }
  return made;
}

describe("execution workers' caches in /metrics", () => {
  it("has a worker decode a new head (and open the state after it) before any job names it, knowing its active set", async () => {
    const blocks = async () => (await caches()).get("worker_blocks")?.size;
    const activeSets = async () => (await caches()).get("worker_active_validator_sets")?.size;
    // The workers report their caches once they have started (a scrape asks them).
    let before = await blocks();
    for (let i = 0; i < 100 && before === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      before = await blocks();
    }
    expect(before).toBeDefined();
    const setsBefore = await activeSets();
    const calls = await workerCalls();
    await rpc(t.url, "anvil_mine", ["0x1"]);
    let after = before;
    for (let i = 0; i < 100 && after === before; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await blocks();
    }
    expect(after).toBe(before! + 1);
    // And the active set after it, as the node worked it out: a trace of its child reads no Staking state.
    expect(await activeSets()).toBe(setsBefore! + 1);
    expect(await workerCalls()).toBe(calls);
  });

  it("reports each worker cache with its bound, and the block cache stays at its bound when calls read more blocks", async () => {
    const blocks = BLOCK_CACHE_ENTRIES + 100;
    await rpc(t.url, "anvil_mine", [`0x${blocks.toString(16)}`]);
    const before = await caches();
    for (const name of [
      "worker_blocks",
      "worker_receipts",
      "worker_receipts_stored_bytes",
      "worker_trie_nodes",
      "worker_pending_trie_nodes",
      "worker_pending_warm_state",
    ])
      expect(before.get(name), name).toBeDefined();
    expect(before.get("worker_blocks")?.bound).toBe(WORKERS * BLOCK_CACHE_ENTRIES);
    expect(before.get("worker_trie_nodes")?.bound).toBe(WORKERS * before.get("trie_nodes")!.bound);
    expect(before.get("worker_receipts")?.bound).toBe(WORKERS * before.get("receipts")!.bound);
    // A call at each block: the worker reads every one of them.
    for (let n = 1; n <= blocks; n++) {
      const answer = await rpc(t.url, "eth_call", [
        { to: "0x00000000000000000000000000000000000000aa" },
        `0x${n.toString(16)}`,
      ]);
      expect(answer.error).toBeUndefined();
      if (n % 100 === 0) {
        const { size, bound } = (await caches()).get("worker_blocks")!;
        expect(size).toBeLessThanOrEqual(bound);
      }
    }
    expect((await caches()).get("worker_blocks")).toEqual({
      size: WORKERS * BLOCK_CACHE_ENTRIES,
      bound: WORKERS * BLOCK_CACHE_ENTRIES,
    });
  });

  it("answers a scrape while the worker runs a long call, with the worker's last figures", async () => {
    const { wallet, publicClient } = viemClients(t.url);
    const hash = await wallet.sendTransaction({ data: CALL_LOOPER_CODE });
    const looper: Address = (await publicClient.waitForTransactionReceipt({ hash })).contractAddress!;
    const idle = (await caches()).get("worker_blocks")!;
    const dispatched = await workerCalls();
    let settled = false;
    const looping = rpc(t.url, "eth_call", [{ to: looper, gas: "0x2faf080" }, "latest"]).finally(() => {
      settled = true;
    });
    while ((await workerCalls()) === dispatched) await new Promise((r) => setTimeout(r, 5));
    const busy = (await caches()).get("worker_blocks")!;
    expect(settled).toBe(false);
    expect(busy).toEqual(idle);
    expect((await looping).error).toBeDefined();
  });
});

describe("execution workers' caches past small bounds", () => {
  const bounds = {
    store: { blocks: 8, receiptBlocks: 6, receiptBytes: 1024 * 1024 },
    trieNodes: 16,
  } as const satisfies StorageCacheBounds;
  let pool: CallWorkerPool;

  beforeAll(async () => {
    const head = Number(t.node.chain.head.header.number);
    if (head < 30) await rpc(t.url, "anvil_mine", [`0x${(30 - head).toString(16)}`]);
    pool = await startPool(1, bounds);
  });

  afterAll(async () => {
    await pool?.close();
  });

  const block = (n: number) => t.node.chain.blockByNumber(BigInt(n))!;

  it("keeps the decoded blocks and the trie nodes at their bounds when calls read more", async () => {
    const request = CallRequest.parse({ to: "0x00000000000000000000000000000000000000aa" });
    for (let n = 1; n <= 30; n++) {
      const result = await pool.call(request, block(n), runLimit(10_000));
      expect(result && "ok" in result).toBe(true);
    }
    const sizes = await poolCaches(pool);
    expect(sizes.get("worker_blocks")).toEqual({ size: bounds.store.blocks, bound: bounds.store.blocks });
    expect(sizes.get("worker_trie_nodes")).toEqual({ size: bounds.trieNodes, bound: bounds.trieNodes });
  });

  it("keeps the decoded receipts at their bound when traces read more blocks' receipts", async () => {
    for (let n = 1; n <= 12; n++) {
      const task = {
        kind: "traceBlock",
        blockHash: block(n).hash(),
        options: { tracer: "callTracer" },
      } as const;
      expect(await pool.run(task, runLimit(10_000))).toBe("[]");
    }
    const sizes = await poolCaches(pool);
    expect(sizes.get("worker_receipts")).toEqual({
      size: bounds.store.receiptBlocks,
      bound: bounds.store.receiptBlocks,
    });
    expect(sizes.get("worker_receipts_stored_bytes")?.bound).toBe(bounds.store.receiptBytes);
  });
});

describe("a new head's preparation", () => {
  let pool: CallWorkerPool;

  beforeAll(async () => {
    pool = await startPool(2);
  });

  afterAll(async () => {
    await pool?.close();
  });

  it("falls to the one worker the next job goes to: the other decodes nothing", async () => {
    // A block neither worker of this pool has read.
    await rpc(t.url, "anvil_mine", ["0x1"]);
    const head = t.node.chain.head;
    const parent = t.node.chain.blockByHash(head.header.parentHash)!;
    const decoded = async () => (await poolCaches(pool)).get("worker_blocks")!.size;
    const before = await decoded();
    pool.recordStateStep({
      blockHash: head.hash(),
      parentRoot: parent.header.stateRoot,
      root: head.header.stateRoot,
      changed: [],
    });
    let after = before;
    for (let i = 0; i < 100 && after === before; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await decoded();
    }
    expect(after).toBe(before + 1);
    // Given time, the other worker has still not decoded it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await decoded()).toBe(before + 1);
  });

  it("has that worker alone make the head's header-only pending block before any call asks for it", async () => {
    const headerBlocks = async () => (await poolCaches(pool)).get("worker_pending_header_blocks")!;
    expect(await headerBlocks()).toEqual({ size: 0, bound: 2 });
    pool.preparePending(nextHeaderContext("next-header"));
    expect(await headerBlocksMade(pool)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await headerBlocks()).size).toBe(1);
  });

  it("gives the next job, of equally loaded workers, to the one it prepared", async () => {
    const { wallet, publicClient } = viemClients(t.url);
    const hash = await wallet.sendTransaction({ data: CALL_LOOPER_CODE });
    const looper: Address = (await publicClient.waitForTransactionReceipt({ hash })).contractAddress!;
    const fresh = await startPool(2);
    try {
      const head = t.node.chain.head;
      // One worker loops until its time is up: the pending block of a new head goes to the other.
      const looping = fresh
        .call(CallRequest.parse({ to: looper, gas: "0x2faf080" }), head, runLimit(1_500))
        .catch((error: unknown) => error);
      const context = nextHeaderContext("after-loop");
      fresh.preparePending(context);
      expect(await headerBlocksMade(fresh)).toBe(1);
      expect(await looping).toBeInstanceOf(Error);
      // Both idle: a call at that pending block runs where it was made (NUMBER: the head's number + 1).
      const outcome = await fresh.call(
        CallRequest.parse({ data: "0x4360005260206000f3" }),
        head,
        runLimit(10_000),
        context,
      );
      expect(outcome && "ok" in outcome ? BigInt(`0x${Buffer.from(outcome.ok).toString("hex")}`) : -1n).toBe(
        head.header.number + 1n,
      );
      expect((await poolCaches(fresh)).get("worker_pending_header_blocks")!.size).toBe(1);
    } finally {
      await fresh.close();
    }
  });
});
