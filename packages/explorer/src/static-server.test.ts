import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  defaultWsUrl,
  ExplorerNotBuiltError,
  type ExplorerServer,
  InvalidApiUrlError,
  parseApiUrl,
  startExplorerServer,
} from "./static-server.js";

describe("explorer static server", () => {
  let root: string;
  let server: ExplorerServer;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "strata-explorer-static-"));
    mkdirSync(join(root, "assets"));
    writeFileSync(join(root, "index.html"), "<!doctype html><title>app</title>");
    writeFileSync(join(root, "assets", "index-abc.js"), "console.log(1)");
    writeFileSync(join(root, "assets", "index-abc.css"), "body{}");
    writeFileSync(join(tmpdir(), "strata-explorer-outside.txt"), "secret");
    server = await startExplorerServer({ apiUrl: "http://127.0.0.1:4000/", port: 0, root });
  });

  afterAll(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(join(tmpdir(), "strata-explorer-outside.txt"), { force: true });
  });

  it("serves /config.json with the gateway URL and its WebSocket", async () => {
    const res = await fetch(`${server.url}/config.json`);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await res.json()).toEqual({ apiUrl: "http://127.0.0.1:4000", wsUrl: "ws://127.0.0.1:4000/ws" });
  });

  it("hands the pages the API key it was started with", async () => {
    const keyed = await startExplorerServer({
      apiUrl: "http://127.0.0.1:4000",
      port: 0,
      root,
      apiKey: "sk_test",
    });
    try {
      const config = (await (await fetch(`${keyed.url}/config.json`)).json()) as Record<string, string>;
      expect(config.apiKey).toBe("sk_test");
    } finally {
      await keyed.close();
    }
  });

  it("serves assets with their content types and long caching", async () => {
    const js = await fetch(`${server.url}/assets/index-abc.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js.headers.get("cache-control")).toContain("immutable");
    expect(await js.text()).toBe("console.log(1)");
    const css = await fetch(`${server.url}/assets/index-abc.css`);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
  });

  it("answers every app route with index.html, and a policy that allows only itself and the gateway", async () => {
    for (const path of ["/", "/block/12", "/tx/0xabc", "/search?q=1"]) {
      const res = await fetch(server.url + path);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(await res.text()).toContain("<title>app</title>");
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("connect-src 'self' http://127.0.0.1:4000 ws://127.0.0.1:4000");
    }
  });

  it("answers 404 for a missing file, never a file outside the app, and 405 for writes", async () => {
    expect((await fetch(`${server.url}/assets/missing.js`)).status).toBe(404);
    expect((await fetch(`${server.url}/..%2Fstrata-explorer-outside.txt`)).status).toBe(404);
    expect((await fetch(`${server.url}/%2e%2e/%2e%2e/etc/passwd.txt`)).status).toBe(404);
    expect((await fetch(`${server.url}/%E0%A4%A.js`)).status).toBe(400);
    const post = await fetch(`${server.url}/`, { method: "POST", body: "x" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
  });

  it("refuses to start without a built app or with an API URL that is not http(s)", async () => {
    const empty = mkdtempSync(join(tmpdir(), "strata-explorer-empty-"));
    await expect(
      startExplorerServer({ apiUrl: "http://127.0.0.1:4000", port: 0, root: empty }),
    ).rejects.toBeInstanceOf(ExplorerNotBuiltError);
    rmSync(empty, { recursive: true, force: true });
    expect(() => parseApiUrl("127.0.0.1:4000")).toThrow(InvalidApiUrlError);
    expect(() => parseApiUrl("ftp://example")).toThrow(
      '--api: expected an http:// or https:// URL, got "ftp://example"',
    );
    expect(parseApiUrl("https://api.example/base/")).toBe("https://api.example/base");
    expect(defaultWsUrl("https://api.example")).toBe("wss://api.example/ws");
  });
});
