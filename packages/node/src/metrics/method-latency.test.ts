import { Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { MethodLatencyHistogram } from "./method-latency.js";

const NAME = "test_request_duration_seconds";
const HELP = "request handling time by method";
const BUCKETS = [0.001, 0.01, 0.1];
const OBSERVED: [string, number][] = [
  ["eth_chainId", 0.0002],
  ["eth_chainId", 0.001],
  ["eth_call", 0.05],
  ["eth_chainId", 0.02],
  ["eth_call", 3],
  ["eth_call", 0.1],
];

describe("MethodLatencyHistogram", () => {
  it("exposes the same text as prom-client's histogram fed the same observations", async () => {
    const ours = new Registry();
    const latency = new MethodLatencyHistogram({ name: NAME, help: HELP, buckets: BUCKETS, registry: ours });
    const reference = new Registry();
    const histogram = new Histogram({
      name: NAME,
      help: HELP,
      buckets: BUCKETS,
      labelNames: ["method"],
      registers: [reference],
    });
    for (const [method, seconds] of OBSERVED) {
      latency.record(method, seconds);
      histogram.observe({ method }, seconds);
    }
    const text = await ours.metrics();
    expect(text).toBe(await reference.metrics());
    expect(text).toContain(`${NAME}_bucket{le="0.1",method="eth_call"} 2`);
    expect(text).toContain(`${NAME}_count{method="eth_chainId"} 3`);
    const lines = async (metric: { get(): Promise<{ values: object[] }> }) =>
      (await metric.get()).values.map((v) => {
        const { labels, value, metricName } = v as { labels: object; value: number; metricName: string };
        return { labels, value, metricName };
      });
    expect(await lines(latency)).toEqual(await lines(histogram));
  });

  it("forgets every series on reset and refuses prom-client's observe", async () => {
    const registry = new Registry();
    const latency = new MethodLatencyHistogram({ name: NAME, help: HELP, buckets: BUCKETS, registry });
    latency.record("eth_chainId", 0.5);
    registry.resetMetrics();
    expect(await registry.metrics()).not.toContain("eth_chainId");
    expect(() => latency.observe({ method: "eth_chainId" }, 1)).toThrow(/record/);
  });
});
