import { parseGwei } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { devAccount, rpc } from "../../e2e/clients.js";
import { startTestNode, type TestNode } from "../../testing/test-node.js";

let t: TestNode;
const QUEUE_BOUND = 256 * 1024;

beforeAll(async () => {
  t = await startTestNode({
    mining: { mode: "manual" },
    rpc: { maxWsMessageBytes: 4096, maxWsQueuedBytes: QUEUE_BOUND, maxTxBytes: 128 * 1024 },
  });
});
afterAll(() => t.stop());

/** The node's `ws_send_queue_bytes` gauge, after checking that its bound is the configured one. */
async function largestSendQueue(): Promise<number> {
  const text = await (await fetch(`${t.url}/metrics`)).text();
  const value = (name: string) =>
    Number(
      text
        .split("\n")
        .find((line) => line.startsWith(`${name}{cache="ws_send_queue_bytes"`))
        ?.split(" ")
        .at(-1),
    );
  expect(value("strata_cache_bound")).toBe(QUEUE_BOUND);
  return value("strata_cache_size");
}

function open(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url);
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve(ws));
    ws.once("error", reject);
  });
}

function subscribeFull(ws: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    ws.once("message", () => resolve());
    ws.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "eth_subscribe",
        params: ["newPendingTransactions", true],
      }),
    );
  });
}

describe("WebSocket limits", () => {
  it("closes a connection that sends a message over the size limit (1009)", async () => {
    const ws = await open(t.wsUrl);
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    ws.send(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "web3_sha3", params: [`0x${"00".repeat(4096)}`] }),
    );
    expect(await closed).toBe(1009);
    expect((await rpc(t.url, "eth_chainId")).result).toBe("0x539");
  });

  it("drops a client that stops reading before its queue passes the bound, without holding back one that reads", async () => {
    const slow = await open(t.wsUrl);
    const fast = await open(t.wsUrl);
    await subscribeFull(slow);
    await subscribeFull(fast);
    let received = 0;
    fast.on("message", () => {
      received++;
    });
    (slow as unknown as { _socket: { pause(): void } })._socket.pause();
    const sender = devAccount(7);
    const count = 60;
    for (let nonce = 0; nonce < count; nonce++) {
      const raw = await sender.signTransaction({
        chainId: 1337,
        type: "eip1559",
        nonce,
        to: devAccount(8).address,
        gas: 5_000_000n,
        maxFeePerGas: parseGwei("2"),
        maxPriorityFeePerGas: parseGwei("1"),
        data: `0x${"ab".repeat(100 * 1024)}`,
      });
      const sent = await rpc(t.url, "eth_sendRawTransaction", [raw]);
      expect(sent.error).toBeUndefined();
      // Each notification carries 200 KB of data: the slow client's queue fills past the bound within a few.
      expect(await largestSendQueue()).toBeLessThanOrEqual(QUEUE_BOUND);
    }
    // The paused client never reads its close frame; the server's connection count shows the drop.
    for (let i = 0; i < 500 && (received < count || t.node.status().wsConnections > 1); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(received).toBe(count);
    expect(t.node.status().wsConnections).toBe(1);
    expect(await largestSendQueue()).toBeLessThanOrEqual(QUEUE_BOUND);
    fast.close();
    slow.terminate();
  });
});

/** Subscribes `ws` to newHeads and waits for the answer. */
function subscribeHeads(ws: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    ws.once("message", () => resolve());
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"] }));
  });
}

/** The close code and reason of `ws`, once it closes. */
function closed(ws: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) =>
    ws.once("close", (code, reason) => resolve({ code, reason: reason.toString() })),
  );
}

/** Answers eth_chainId over `ws`. */
function chainIdOver(ws: WebSocket): Promise<unknown> {
  return new Promise((resolve) => {
    ws.once("message", (data) => resolve((JSON.parse(data.toString()) as { result: unknown }).result));
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "eth_chainId" }));
  });
}

describe("WebSocket connections per address", () => {
  let capped: TestNode;
  beforeAll(async () => {
    capped = await startTestNode({ mining: { mode: "manual" }, rpc: { maxWsConnectionsPerIp: 2 } });
  });
  afterAll(() => capped.stop());

  it("refuses the connection over the cap with 429 while the others stay open", async () => {
    const first = await open(capped.wsUrl);
    const second = await open(capped.wsUrl);
    const refused = new WebSocket(capped.wsUrl);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      refused.once("open", () => reject(new Error("connection over the cap was accepted")));
      refused.once("unexpected-response", (_req, res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
    });
    refused.on("error", () => {});
    expect(answer.status).toBe(429);
    expect(JSON.parse(answer.body).error).toEqual({
      code: -32005,
      message: "too many WebSocket connections from this address",
      data: { limit: 2 },
    });
    expect(await chainIdOver(first)).toBe("0x539");
    expect(await chainIdOver(second)).toBe("0x539");
    // A closed connection frees its place.
    const gone = closed(first);
    first.close();
    await gone;
    for (let i = 0; i < 100 && capped.node.status().wsConnections > 1; i++)
      await new Promise((r) => setTimeout(r, 10));
    const third = await open(capped.wsUrl);
    expect(await chainIdOver(third)).toBe("0x539");
    second.close();
    third.close();
  });
});

describe("WebSocket connections in all", () => {
  const max = 3;
  let full: TestNode;
  beforeAll(async () => {
    full = await startTestNode({
      mining: { mode: "manual" },
      rpc: { maxWsConnections: max, maxWsConnectionsPerIp: 0 },
    });
  });
  afterAll(() => full.stop());

  it("holds at most its cap of connections when more clients connect at once", async () => {
    const attempts = await Promise.allSettled(Array.from({ length: 2 * max }, () => open(full.wsUrl)));
    const opened = attempts.flatMap((a) => (a.status === "fulfilled" ? [a.value] : []));
    expect(opened).toHaveLength(max);
    for (const refused of attempts.filter((a) => a.status === "rejected"))
      expect(String(refused.reason)).toContain("503");
    const text = await (await fetch(`${full.url}/metrics`)).text();
    expect(text).toContain(`strata_cache_size{cache="ws_connections",unit="entries"} ${max}`);
    expect(text).toContain(`strata_cache_bound{cache="ws_connections",unit="entries"} ${max}`);
    for (const ws of opened) ws.close();
  });
});

describe("WebSocket ping and idle timeout", () => {
  const pingMs = 100;
  const idleMs = 300;
  let pinged: TestNode;
  beforeAll(async () => {
    pinged = await startTestNode({
      mining: { mode: "manual" },
      rpc: { wsPingIntervalMs: pingMs, wsIdleTimeoutMs: idleMs },
    });
  });
  afterAll(() => pinged.stop());

  it("drops a client that does not answer pings and keeps one that does", async () => {
    const deaf = new WebSocket(pinged.wsUrl, { autoPong: false });
    await new Promise((resolve) => deaf.once("open", resolve));
    const alive = await open(pinged.wsUrl);
    // Both subscribe, so that the idle timeout plays no part.
    await subscribeHeads(deaf);
    await subscribeHeads(alive);
    const dropped = await closed(deaf);
    expect(dropped.code).toBe(1006);
    await new Promise((r) => setTimeout(r, 3 * pingMs));
    expect(alive.readyState).toBe(WebSocket.OPEN);
    expect(await chainIdOver(alive)).toBe("0x539");
    alive.close();
  });

  it("closes an idle socket without subscriptions and keeps one with a subscription", async () => {
    const opened = performance.now();
    const idle = await open(pinged.wsUrl);
    const subscribed = await open(pinged.wsUrl);
    await subscribeHeads(subscribed);
    expect(await closed(idle)).toEqual({ code: 1001, reason: "idle timeout" });
    expect(performance.now() - opened).toBeGreaterThanOrEqual(idleMs);
    await new Promise((r) => setTimeout(r, idleMs + 2 * pingMs));
    expect(subscribed.readyState).toBe(WebSocket.OPEN);
    subscribed.close();
  });
});
