import { type MetricsServer, serveMetricsEndpoint } from "@strata/protocol/metrics-server";
import { collectDefaultMetrics, Gauge, Registry } from "prom-client";
import type { GrowingStructure } from "./growing-structure.js";
import type { IndexerStatus } from "./indexer.js";

export type { MetricsServer };

/** What {@link createIndexerMetrics} reports besides the indexer's status. */
export interface IndexerMetricsOptions {
  /** Caches and maps to report with their bounds. */
  readonly structures?: () => readonly GrowingStructure[];
  /**
   * prom-client's process and Node.js runtime metrics (heap, GC, event-loop lag, RSS); default on.
   * Off when the registry is served with another one of the same process (the gateway's, in `strata dev`).
   */
  readonly processMetrics?: boolean;
}

/** The indexer's Prometheus metrics, read from its status at scrape time. */
export function createIndexerMetrics(
  status: () => IndexerStatus,
  options: IndexerMetricsOptions = {},
): Registry {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const structures = options.structures;
  if (structures !== undefined) {
    const labelNames = ["cache", "unit"] as const;
    new Gauge({
      name: "strata_cache_size",
      help: "Current size of a cache or map that can grow (entries or bytes, see unit)",
      labelNames,
      registers: [registry],
      collect() {
        for (const s of structures()) this.set({ cache: s.name, unit: s.unit }, s.size());
      },
    });
    new Gauge({
      name: "strata_cache_bound",
      help: "The size a cache or map never exceeds (entries or bytes, see unit)",
      labelNames,
      registers: [registry],
      collect() {
        for (const s of structures()) this.set({ cache: s.name, unit: s.unit }, s.bound);
      },
    });
  }
  const gauge = (name: string, help: string, read: (s: IndexerStatus) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read(status()));
      },
    });
  gauge("strata_indexer_indexed_block", "Last block committed to the index", (s) => s.indexedBlock);
  gauge(
    "strata_indexer_head_block",
    "The node's head at the indexer's last look (-1 before it)",
    (s) => s.headBlock ?? -1,
  );
  gauge("strata_indexer_lag_blocks", "Blocks the index is behind the node", (s) => s.lag);
  gauge("strata_indexer_subscribed", "1 while newHeads notifications flow (0: polling)", (s) =>
    s.subscribed ? 1 : 0,
  );
  gauge("strata_indexer_reorgs", "Reorganisations handled since the indexer started", (s) => s.reorgs);
  gauge(
    "strata_indexer_failed",
    "1 once a block failed to index after every retry (the index is halted at the last good block)",
    (s) => (s.health === "failed" ? 1 : 0),
  );
  gauge(
    "strata_indexer_failing_block",
    "The block failing rounds are trying to index (-1 while rounds succeed)",
    (s) => s.failingBlock ?? -1,
  );
  gauge(
    "strata_indexer_failed_rounds",
    "Failed indexing rounds since the indexer started",
    (s) => s.failures,
  );
  return registry;
}

/** Serves `registry` on `GET /metrics` (404 elsewhere, 405 for other methods). */
export function serveMetrics(registry: Registry, port: number, addr = "127.0.0.1"): Promise<MetricsServer> {
  return serveMetricsEndpoint(
    { render: () => registry.metrics(), contentType: registry.contentType },
    addr,
    port,
  );
}
