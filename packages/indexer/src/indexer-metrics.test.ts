import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IndexerStatus } from "./indexer.js";
import { createIndexerMetrics, type MetricsServer, serveMetrics } from "./indexer-metrics.js";

describe("indexer metrics", () => {
  let status: IndexerStatus = {
    indexedBlock: 40,
    headBlock: 42,
    lag: 2,
    subscribed: true,
    reorgs: 1,
    lastError: null,
    health: "ok",
    failingBlock: null,
    consecutiveFailures: 0,
    failures: 0,
  };
  let server: MetricsServer;
  beforeAll(async () => {
    server = await serveMetrics(
      createIndexerMetrics(() => status),
      0,
    );
  });
  afterAll(async () => {
    await server.close();
  });

  it("reads the status at each scrape", async () => {
    const first = await (await fetch(server.url)).text();
    expect(first).toMatch(/^strata_indexer_lag_blocks 2$/m);
    expect(first).toMatch(/^strata_indexer_indexed_block 40$/m);
    expect(first).toMatch(/^strata_indexer_subscribed 1$/m);
    status = { ...status, indexedBlock: 42, lag: 0, subscribed: false, headBlock: null };
    const second = await (await fetch(server.url)).text();
    expect(second).toMatch(/^strata_indexer_lag_blocks 0$/m);
    expect(second).toMatch(/^strata_indexer_head_block -1$/m);
    expect(second).toMatch(/^strata_indexer_subscribed 0$/m);
    expect(second).toMatch(/^strata_indexer_failed 0$/m);
    status = { ...status, health: "failed", failingBlock: 43, consecutiveFailures: 5, failures: 7 };
    const failed = await (await fetch(server.url)).text();
    expect(failed).toMatch(/^strata_indexer_failed 1$/m);
    expect(failed).toMatch(/^strata_indexer_failing_block 43$/m);
    expect(failed).toMatch(/^strata_indexer_failed_rounds 7$/m);
  });

  it("answers 404 off /metrics and 405 for other methods", async () => {
    expect((await fetch(server.url.replace("/metrics", "/other"))).status).toBe(404);
    expect((await fetch(server.url, { method: "POST" })).status).toBe(405);
  });
});
