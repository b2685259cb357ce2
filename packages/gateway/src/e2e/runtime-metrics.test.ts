import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStack, type TestStack } from "../../../../test/support/test-stack.js";
import { get, WsClient } from "./helpers.js";

let stack: TestStack;
let gateway: TestStack["gateway"];
let key: string;

beforeAll(async () => {
  stack = await startTestStack({ database: "postgres", indexer: false });
  gateway = stack.gateway;
  key = (await gateway.keys.create("enterprise")).key;
});

afterAll(async () => {
  await stack?.stop();
});

/** The value of `name{…labels…}` in a Prometheus text exposition. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line === undefined ? undefined : Number(line.split(" ").at(-1));
}

describe("gateway runtime metrics", () => {
  it("reports the process's runtime and the size and bound of its caches, maps and queues", async () => {
    const client = await WsClient.open(`${gateway.wsUrl}/ws`, { "X-API-Key": key });
    try {
      const answer = await client.call("eth_subscribe", ["newHeads"]);
      expect(typeof answer.result).toBe("string");
      const text = (await get(`${gateway.url}/metrics`)).text;
      expect(text).toMatch(/^nodejs_heap_size_used_bytes \d+/m);
      expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
      expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds /m);
      expect(text).toContain("nodejs_gc_duration_seconds");
      expect(sample(text, "strata_cache_size", 'cache="ws_connections"')).toBe(1);
      expect(sample(text, "strata_cache_size", 'cache="ws_subscriptions"')).toBe(1);
      expect(sample(text, "strata_cache_bound", 'cache="ws_connections"')).toBe(
        gateway.config.maxWsConnections,
      );
      expect(sample(text, "strata_cache_size", 'cache="limiter_subjects"')).toBeGreaterThanOrEqual(1);
      expect(sample(text, "strata_cache_size", 'cache="api_key_lookups"')).toBeGreaterThanOrEqual(0);
      for (const cache of [
        "api_key_lookups",
        "unknown_api_keys",
        "limiter_subjects",
        "ws_connections",
        "ws_subscriptions",
        "ws_send_queue_bytes",
        "head_answers",
        "backtests",
      ]) {
        const size = sample(text, "strata_cache_size", `cache="${cache}"`);
        const bound = sample(text, "strata_cache_bound", `cache="${cache}"`);
        expect(bound, cache).toBeGreaterThan(0);
        expect(size, cache).toBeLessThanOrEqual(bound!);
      }
    } finally {
      client.close();
    }
  });
});
