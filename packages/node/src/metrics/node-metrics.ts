import { Counter, collectDefaultMetrics, Gauge, Registry } from "prom-client";
import type { BoundedStructure } from "./bounded-structure.js";
import { MethodLatencyHistogram } from "./method-latency.js";

/** Live figures the metrics read at scrape time. */
export interface NodeGaugeSources {
  headNumber(): bigint;
  /** Seconds between the head and its parent (0 at genesis). */
  headBlockTime(): number;
  pendingTransactions(): number;
  queuedTransactions(): number;
  wsConnections(): number;
  subscriptions(): number;
  /** eth_calls handed to worker threads since the start. */
  workerCalls(): number;
  /** Peers that passed the p2p status handshake. */
  peers(): number;
  /** Blocks from peers imported since the start, by how they came: gossip or range sync. */
  importedBlocks(): { readonly gossip: number; readonly range: number };
  /** Every cache, map and queue that can grow, with its bound. */
  boundedStructures(): readonly BoundedStructure[];
  /** Brings the sizes held on other threads (the execution workers' caches) up to date, quickly. */
  refreshBoundedStructures(): Promise<void>;
}

/**
 * `strata_cache_size` and `strata_cache_bound` by `cache` and `unit`, read from `structures` at
 * scrape time, once `refresh` (when given) has settled.
 */
export function registerCacheGauges(
  registry: Registry,
  structures: () => readonly BoundedStructure[],
  refresh: () => Promise<void> = async () => {},
): void {
  const labelNames = ["cache", "unit"] as const;
  new Gauge({
    name: "strata_cache_size",
    help: "Current size of a cache, map or queue that can grow (entries or bytes, see unit)",
    labelNames,
    registers: [registry],
    async collect() {
      await refresh();
      for (const s of structures()) this.set({ cache: s.name, unit: s.unit }, s.size());
    },
  });
  new Gauge({
    name: "strata_cache_bound",
    help: "The size a cache, map or queue never exceeds (entries or bytes, see unit)",
    labelNames,
    registers: [registry],
    async collect() {
      await refresh();
      for (const s of structures()) this.set({ cache: s.name, unit: s.unit }, s.bound);
    },
  });
}

/** Upper bounds of the RPC latency buckets, seconds. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The node's Prometheus metrics: chain, pool and connection gauges, and RPC latency by method. */
export class NodeMetrics {
  readonly registry = new Registry();
  readonly #latency: MethodLatencyHistogram;
  readonly #errors: Counter<"method">;

  constructor(sources: NodeGaugeSources) {
    // Heap spaces, GC pauses, event-loop lag, handles, RSS: where the process's memory and time go.
    collectDefaultMetrics({ register: this.registry });
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.set(read());
        },
      });
    gauge("strata_head_block_number", "Number of the canonical head block", () =>
      Number(sources.headNumber()),
    );
    gauge("strata_head_block_time_seconds", "Seconds between the head block and its parent", () =>
      sources.headBlockTime(),
    );
    gauge("strata_txpool_pending", "Executable transactions in the pool", () =>
      sources.pendingTransactions(),
    );
    gauge("strata_txpool_queued", "Transactions waiting for a nonce gap to close", () =>
      sources.queuedTransactions(),
    );
    gauge("strata_ws_connections", "Open WebSocket connections", () => sources.wsConnections());
    gauge("strata_ws_subscriptions", "Active eth_subscribe subscriptions", () => sources.subscriptions());
    gauge("strata_p2p_peers", "Connected peers that passed the status handshake", () => sources.peers());
    registerCacheGauges(
      this.registry,
      () => sources.boundedStructures(),
      () => sources.refreshBoundedStructures(),
    );
    new Counter({
      name: "strata_p2p_imported_blocks_total",
      help: "Blocks from peers verified and imported, by source: gossip or range (blocks-by-range sync)",
      labelNames: ["source"],
      registers: [this.registry],
      collect() {
        this.reset();
        const imported = sources.importedBlocks();
        this.inc({ source: "gossip" }, imported.gossip);
        this.inc({ source: "range" }, imported.range);
      },
    });
    new Counter({
      name: "strata_call_worker_calls_total",
      help: "eth_calls run on worker threads",
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(sources.workerCalls());
      },
    });
    this.#latency = new MethodLatencyHistogram({
      name: "strata_rpc_request_duration_seconds",
      help: "JSON-RPC request handling time by method",
      buckets: LATENCY_BUCKETS,
      registry: this.registry,
    });
    this.#errors = new Counter({
      name: "strata_rpc_errors_total",
      help: "JSON-RPC requests answered with an error, by method",
      labelNames: ["method"],
      registers: [this.registry],
    });
  }

  /** Records one answered JSON-RPC request. */
  observeRequest(method: string, seconds: number, failed: boolean): void {
    this.#latency.record(method, seconds);
    if (failed) this.#errors.inc({ method });
  }

  /** The Prometheus text exposition of every metric. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** The content type of {@link render}'s output. */
  get contentType(): string {
    return this.registry.contentType;
  }
}
