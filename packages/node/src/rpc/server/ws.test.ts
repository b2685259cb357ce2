import { TestToken } from "@strata/contracts";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { devAccount, rpc, viemClients } from "../../e2e/clients.js";
import { startTestNode, type TestNode } from "../../testing/test-node.js";
import { createSink } from "./ws.js";

let t: TestNode;

interface Message {
  id?: number;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
  method?: string;
  params?: { subscription: string; result: unknown };
}

/** A raw WebSocket JSON-RPC client collecting every message. */
class Client {
  readonly messages: Message[] = [];
  private nextId = 1;
  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => this.messages.push(JSON.parse(data.toString()) as Message));
  }

  static async open(url: string): Promise<Client> {
    const ws = new WebSocket(url);
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    return new Client(ws);
  }

  async call(method: string, params: unknown[] = []): Promise<Message> {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return this.waitFor((m) => m.id === id);
  }

  async waitFor(predicate: (m: Message) => boolean, timeoutMs = 5000): Promise<Message> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error("timed out waiting for a message");
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  notifications(subscription: string): unknown[] {
    return this.messages.filter((m) => m.params?.subscription === subscription).map((m) => m.params!.result);
  }

  close(): void {
    this.ws.close();
  }
}

beforeAll(async () => {
  t = await startTestNode({
    mining: { mode: "manual" },
    rpc: { maxSubscriptionsPerConnection: 3, maxWsConnectionsPerIp: 0 },
  });
});
afterAll(() => t.stop());

describe("WebSocket transport", () => {
  it("answers requests and batches like HTTP, on the same port", async () => {
    expect(t.wsUrl).toBe(t.url.replace("http", "ws"));
    const client = await Client.open(t.wsUrl);
    expect((await client.call("eth_chainId")).result).toBe("0x539");
    client.ws.send(
      JSON.stringify([
        { jsonrpc: "2.0", id: 100, method: "net_version" },
        { jsonrpc: "2.0", id: 101, method: "nope" },
      ]),
    );
    await client.waitFor((m) => Array.isArray(m));
    const batch = client.messages.find((m) => Array.isArray(m)) as unknown as Message[];
    expect(batch.map((m) => m.id)).toEqual([100, 101]);
    expect(batch[1]!.error?.code).toBe(-32601);
    client.ws.send("{not json");
    expect((await client.waitFor((m) => m.error?.code === -32700)).id).toBeNull();
    client.close();
  });

  it("closes the connection with 1003 on a binary frame", async () => {
    const client = await Client.open(t.wsUrl);
    const closed = new Promise<number>((resolve) => client.ws.once("close", (code) => resolve(code)));
    client.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    expect(await closed).toBe(1003);
  });

  it("refuses subscriptions over HTTP", async () => {
    expect((await rpc(t.url, "eth_subscribe", ["newHeads"])).error).toEqual({
      code: -32601,
      message: "notifications not supported",
    });
  });

  it("notifies newHeads once per block, in order, with the header of eth_getBlockByNumber", async () => {
    const client = await Client.open(t.wsUrl);
    const id = (await client.call("eth_subscribe", ["newHeads"])).result as string;
    expect(id).toMatch(/^0x[0-9a-f]{32}$/);
    const start = Number((await rpc(t.url, "eth_blockNumber")).result);
    await rpc(t.url, "anvil_mine", ["0x5"]);
    await client.waitFor(() => client.notifications(id).length >= 5);
    await new Promise((r) => setTimeout(r, 50));
    const heads = client.notifications(id) as { number: string; hash: string; transactions?: unknown }[];
    expect(heads.map((h) => Number(h.number))).toEqual([1, 2, 3, 4, 5].map((i) => start + i));
    const block = (await rpc(t.url, "eth_getBlockByNumber", [heads[4]!.number, false])).result as Record<
      string,
      unknown
    >;
    const { transactions: _t, size: _s, uncles: _u, withdrawals: _w, ...header } = block;
    expect(heads[4]).toEqual(header);
    expect((await client.call("eth_unsubscribe", [id])).result).toBe(true);
    expect((await client.call("eth_unsubscribe", [id])).result).toBe(false);
    await rpc(t.url, "evm_mine");
    await new Promise((r) => setTimeout(r, 50));
    expect(client.notifications(id)).toHaveLength(5);
    client.close();
  });

  it("notifies matching logs, one per log, and pending transactions as hashes or objects", async () => {
    const { wallet } = viemClients(t.url);
    const deploying = wallet.deployContract({
      abi: TestToken.abi,
      bytecode: TestToken.bytecode,
      args: ["W", "W", parseEther("100")],
    });
    const deployHash = await deploying;
    await rpc(t.url, "evm_mine");
    const token = (
      (await rpc(t.url, "eth_getTransactionReceipt", [deployHash])).result as { contractAddress: string }
    ).contractAddress;
    const client = await Client.open(t.wsUrl);
    const transferTopic = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
    const logs = (await client.call("eth_subscribe", ["logs", { address: token, topics: [transferTopic] }]))
      .result as string;
    const none = (await client.call("eth_subscribe", ["logs", { address: devAccount(9).address }]))
      .result as string;
    const pending = (await client.call("eth_subscribe", ["newPendingTransactions"])).result as string;
    const refused = await client.call("eth_subscribe", ["newPendingTransactions", true]);
    expect(refused.error).toMatchObject({ code: -32005 });
    expect(t.node.status().subscriptions).toBe(3);
    expect((await client.call("eth_subscribe", ["nope"])).error).toEqual({
      code: -32601,
      message: 'no "nope" subscription in eth namespace',
    });
    const hashes: string[] = [];
    for (const to of [devAccount(4).address, devAccount(5).address]) {
      hashes.push(
        await wallet.writeContract({
          address: token as `0x${string}`,
          abi: TestToken.abi,
          functionName: "transfer",
          args: [to, 1n],
        }),
      );
    }
    await client.waitFor(() => client.notifications(pending).length === 2);
    expect(client.notifications(pending)).toEqual(hashes);
    await rpc(t.url, "evm_mine");
    await client.waitFor(() => client.notifications(logs).length === 2);
    const received = client.notifications(logs) as {
      transactionHash: string;
      logIndex: string;
      removed: boolean;
    }[];
    expect(received.map((l) => l.transactionHash)).toEqual(hashes);
    expect(received.map((l) => l.logIndex)).toEqual(["0x0", "0x1"]);
    expect(received.every((l) => l.removed === false)).toBe(true);
    expect(client.notifications(none)).toEqual([]);
    client.close();
  });

  it("leaks nothing through thousands of abrupt disconnects", async () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    if (!gc) throw new Error("run with --expose-gc (vitest.config.ts sets it)");
    const heapUsed = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    let baseline = 0;
    for (let round = 0; round < 11; round++) {
      if (round === 1) baseline = heapUsed();
      const clients = await Promise.all(Array.from({ length: 200 }, () => Client.open(t.wsUrl)));
      await Promise.all(clients.map((c) => c.call("eth_subscribe", ["newHeads"])));
      expect(t.node.status().subscriptions).toBe(200);
      for (const c of clients) c.ws.terminate();
      for (let i = 0; i < 200 && t.node.status().wsConnections > 0; i++)
        await new Promise((r) => setTimeout(r, 10));
      expect(t.node.status()).toMatchObject({ wsConnections: 0, subscriptions: 0 });
    }
    const growth = heapUsed() - baseline;
    expect(growth).toBeLessThan(8 * 1024 * 1024);
    expect((await rpc(t.url, "eth_chainId")).result).toBe("0x539");
  });

  it("disconnects a client that stops reading before more than its bound is queued for it", () => {
    const bound = 64;
    const socket = { bufferedAmount: 0, sent: [] as string[], terminated: false };
    const sink = createSink(
      {
        get readyState() {
          return socket.terminated ? 3 : 1;
        },
        OPEN: 1,
        get bufferedAmount() {
          return socket.bufferedAmount;
        },
        send: ((text: string) => {
          socket.sent.push(text);
          // A client that does not read: every byte and its frame header stays queued.
          socket.bufferedAmount += Buffer.byteLength(text) + 2;
        }) as never,
        terminate: () => {
          socket.terminated = true;
        },
      } as never,
      bound,
    );
    let accepted = 0;
    for (let i = 0; i < 20; i++) {
      if (sink.send(`message ${i}`)) accepted++;
      expect(socket.bufferedAmount).toBeLessThanOrEqual(bound);
    }
    // 11 bytes queued per message, room kept for a 10-byte header: the sixth would pass 64.
    expect(accepted).toBe(5);
    expect(socket.terminated).toBe(true);
    expect(socket.sent).toEqual(["message 0", "message 1", "message 2", "message 3", "message 4"]);
  });

  it("sends one message larger than the bound to a client with nothing queued", () => {
    const socket = { bufferedAmount: 0, sent: [] as string[], terminated: false };
    const sink = createSink(
      {
        readyState: 1,
        OPEN: 1,
        get bufferedAmount() {
          return socket.bufferedAmount;
        },
        send: ((text: string) => {
          socket.sent.push(text);
          socket.bufferedAmount += text.length;
        }) as never,
        terminate: () => {
          socket.terminated = true;
        },
      } as never,
      10,
    );
    expect(sink.send("a large answer")).toBe(true);
    expect(sink.send("x")).toBe(false);
    expect(socket.terminated).toBe(true);
  });
});
