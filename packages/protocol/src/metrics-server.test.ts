import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isLoopback, type MetricsServer, serveMetricsEndpoint } from "./metrics-server.js";

describe("serveMetricsEndpoint", () => {
  let fail = false;
  let server: MetricsServer;
  beforeAll(async () => {
    const endpoint = {
      contentType: "text/plain; version=0.0.4",
      render: async () => {
        if (fail) throw new Error("collect failed");
        return "up 1\n";
      },
    };
    server = await serveMetricsEndpoint(endpoint, "127.0.0.1", 0);
  });
  afterAll(() => server.close());

  it("serves the endpoint's text on GET /metrics, with or without a query", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const res = await fetch(`${server.url}?x=1`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4");
    expect(await res.text()).toBe("up 1\n");
  });

  it("answers 404 elsewhere, 405 with Allow for other methods, 500 when rendering fails", async () => {
    expect((await fetch(server.url.replace(/metrics$/, "other"))).status).toBe(404);
    const post = await fetch(server.url, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
    fail = true;
    expect((await fetch(server.url)).status).toBe(500);
  });
});

describe("isLoopback", () => {
  it("tells loopback addresses from the others", () => {
    expect(["localhost", "::1", "127.0.0.1", "127.1.2.3"].map(isLoopback)).toEqual([true, true, true, true]);
    expect(["0.0.0.0", "::", "10.0.0.1"].map(isLoopback)).toEqual([false, false, false]);
  });
});
