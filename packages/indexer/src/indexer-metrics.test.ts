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
  let tokens = 3;
  beforeAll(async () => {
    server = await serveMetrics(
      createIndexerMetrics(() => status, {
        structures: () => [{ name: "known_tokens", unit: "entries", bound: 100, size: () => tokens }],
      }),
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

  it("reports the process's runtime and each cache's size and bound", async () => {
    const text = await (await fetch(server.url)).text();
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d+/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds /m);
    expect(text).toMatch(/^strata_cache_size\{cache="known_tokens",unit="entries"\} 3$/m);
    expect(text).toMatch(/^strata_cache_bound\{cache="known_tokens",unit="entries"\} 100$/m);
    tokens = 7;
    expect(await (await fetch(server.url)).text()).toMatch(
      /^strata_cache_size\{cache="known_tokens",unit="entries"\} 7$/m,
    );
  });

  it("leaves the process metrics out when asked (a registry served with another)", async () => {
    const text = await createIndexerMetrics(() => status, { processMetrics: false }).metrics();
    expect(text).not.toContain("nodejs_heap_size_used_bytes");
    expect(text).toContain("strata_indexer_lag_blocks");
  });

  it("answers 404 off /metrics and 405 for other methods", async () => {
    expect((await fetch(server.url.replace("/metrics", "/other"))).status).toBe(404);
    expect((await fetch(server.url, { method: "POST" })).status).toBe(405);
  });
});
