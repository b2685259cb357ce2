import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestNode, type TestNode } from "../testing/test-node.js";

/** The value of an unlabelled sample, or of the sample whose label set contains `labels`. */
function sample(text: string, name: string, labels = ""): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const [series, value] = line.split(" ");
    if (series === name || (labels !== "" && series?.startsWith(`${name}{`) && series.includes(labels)))
      return Number(value);
  }
  return undefined;
}

describe("GET /metrics", () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode();
  });
  afterAll(async () => {
    await node.stop();
  });

  const rpc = (method: string, params: unknown[] = []) =>
    fetch(node.url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
  const scrape = async () => {
    const res = await fetch(`${node.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    return res.text();
  };

  it("reports the head, the pool and connections as gauges", async () => {
    await rpc("evm_mine");
    await rpc("evm_mine");
    const text = await scrape();
    expect(sample(text, "strata_head_block_number")).toBe(Number(node.node.chain.head.header.number));
    expect(sample(text, "strata_head_block_number")).toBeGreaterThanOrEqual(2);
    expect(sample(text, "strata_txpool_pending")).toBe(0);
    expect(sample(text, "strata_ws_connections")).toBe(0);
  });

  it("reports the process's runtime and every cache with its bound", async () => {
    const text = await scrape();
    for (const name of [
      "nodejs_heap_size_used_bytes",
      "process_resident_memory_bytes",
      "nodejs_eventloop_lag_p99_seconds",
      "nodejs_active_handles_total",
    ])
      expect(sample(text, name), name).toBeGreaterThan(0);
    expect(text).toContain('nodejs_heap_space_size_used_bytes{space="old"}');
    expect(text).toContain("nodejs_gc_duration_seconds");
    const caches = [
      "head_accounts",
      "log_json",
      "log_json_blocks",
      "blocks",
      "receipts",
      "receipts_stored_bytes",
      "trie_nodes",
      "warm_state",
      "call_results",
      "call_results_bytes",
      "module_call_results",
      "module_call_results_bytes",
      "filters",
      "filter_changes",
      "subscriptions",
      "ws_connections",
      "ws_send_queue_bytes",
      "txpool_pending",
      "txpool_queued",
      "active_validator_sets",
      "pending_trie_nodes",
      "pending_warm_state",
    ];
    for (const cache of caches) {
      const size = sample(text, "strata_cache_size", `cache="${cache}"`);
      const bound = sample(text, "strata_cache_bound", `cache="${cache}"`);
      expect(size, cache).toBeGreaterThanOrEqual(0);
      expect(bound, cache).toBeGreaterThan(0);
      expect(size!, cache).toBeLessThanOrEqual(bound!);
    }
    await rpc("eth_newBlockFilter");
    const after = await scrape();
    expect(sample(after, "strata_cache_size", 'cache="filters"')).toBe(
      sample(text, "strata_cache_size", 'cache="filters"')! + 1,
    );
  });

  it("holds at most its bound of active validator sets when more blocks are built", async () => {
    const bound = sample(await scrape(), "strata_cache_bound", 'cache="active_validator_sets"')!;
    expect(bound).toBe(16);
    // One set is filed per block built.
    await rpc("anvil_mine", [`0x${(2 * bound).toString(16)}`]);
    expect(sample(await scrape(), "strata_cache_size", 'cache="active_validator_sets"')).toBe(bound);
  });

  it("counts requests and errors by method, unknown methods under one label", async () => {
    const before = await scrape();
    const count = (text: string, method: string) =>
      sample(text, "strata_rpc_request_duration_seconds_count", `method="${method}"`) ?? 0;
    await rpc("eth_chainId");
    await rpc("eth_chainId");
    await rpc("eth_getBalance", ["0xnot-an-address"]);
    await rpc("no_suchMethod");
    const after = await scrape();
    expect(count(after, "eth_chainId") - count(before, "eth_chainId")).toBe(2);
    expect(count(after, "unknown") - count(before, "unknown")).toBe(1);
    expect(after).not.toContain('method="no_suchMethod"');
    expect(sample(after, "strata_rpc_errors_total", 'method="eth_getBalance"')).toBe(1);
  });

  it("answers other GET paths with 404 and does not expose metrics by POST", async () => {
    expect((await fetch(`${node.url}/nope`)).status).toBe(404);
    const res = await fetch(`${node.url}/metrics`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(404);
  });
});
