import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CallRequest } from "@strata/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestNode, type TestNode } from "../../testing/test-node.js";
import { workerSettingsOf } from "../../testing/worker-settings.js";
import { runLimit } from "../evm/run-limits.js";
import { CallWorkerPool } from "./call-worker-pool.js";
import { dismissPreloadedWorkers, preloadExecutionWorkers, takePreloadedWorker } from "./worker-preload.js";

let datadir: string;
let t: TestNode;

beforeAll(async () => {
  datadir = mkdtempSync(join(tmpdir(), "strata-worker-preload-"));
  t = await startTestNode({ datadir, rpc: { callWorkers: 0 } });
});

afterAll(async () => {
  await t?.stop();
  rmSync(datadir, { recursive: true, force: true });
});

describe("preloaded execution workers", () => {
  it("are taken by a pool, which posts them their settings; they then serve its calls", async () => {
    preloadExecutionWorkers(1);
    const pool = new CallWorkerPool(workerSettingsOf(t, datadir), 1);
    try {
      pool.start();
      // The pool took the waiting worker rather than starting one of its own.
      expect(takePreloadedWorker()).toBeUndefined();
      // NUMBER, returned as one word: the head's number, answered on the preloaded worker.
      const request = CallRequest.parse({ data: "0x4360005260206000f3" });
      const outcome = await pool.call(request, t.node.chain.head, runLimit(30_000));
      expect(outcome && "ok" in outcome ? BigInt(`0x${Buffer.from(outcome.ok).toString("hex")}`) : -1n).toBe(
        t.node.chain.head.header.number,
      );
    } finally {
      await pool.close();
    }
  });

  it("left over, exit once dismissed", async () => {
    preloadExecutionWorkers(2);
    await dismissPreloadedWorkers();
    expect(takePreloadedWorker()).toBeUndefined();
  });
});
