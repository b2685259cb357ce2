import { parseGwei } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { devAccount, rpc } from "../../e2e/clients.js";
import { startTestNode, type TestNode } from "../../testing/test-node.js";

let t: TestNode;

beforeAll(async () => {
  t = await startTestNode({
    mining: { mode: "manual" },
    rpc: { maxWsMessageBytes: 4096, maxWsQueuedBytes: 256 * 1024, maxTxBytes: 128 * 1024 },
  });
});
afterAll(() => t.stop());

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

  it("drops a client that stops reading, without holding back one that reads", async () => {
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
    }
    // The paused client never reads its close frame; the server's connection count shows the drop.
    for (let i = 0; i < 500 && (received < count || t.node.status().wsConnections > 1); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(received).toBe(count);
    expect(t.node.status().wsConnections).toBe(1);
    fast.close();
    slow.terminate();
  });
});
