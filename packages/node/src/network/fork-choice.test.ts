import { TestToken } from "@strata/contracts";
import { pino } from "pino";
import { parseEther } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { Reorg } from "../chain/chain.js";
import { testConfig } from "../config/node-config.js";
import { devAccount, viemClients } from "../e2e/clients.js";
import { createNode, type StrataNode } from "../node.js";

async function startIsolated(offline: readonly string[] = []): Promise<StrataNode> {
  const node = await createNode(
    testConfig({
      mining: { mode: "manual" },
      p2p: { enabled: true, port: 0, addr: "127.0.0.1", bootnodes: [] },
      ...(offline.length > 0 ? { validator: { offline } } : {}),
    }),
    pino({ level: "silent" }),
  );
  await node.start();
  return node;
}

async function until(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("fork choice over p2p", () => {
  const nodes: StrataNode[] = [];
  afterAll(async () => {
    for (const node of nodes) await node.stop();
  });

  it("a node on a lighter branch reorganises to the heavier one: removed logs, new heads, pool re-admission", async () => {
    const a = await startIsolated();
    const b = await startIsolated();
    nodes.push(a, b);
    // B's own branch: a token deployed and a transfer that logs, in two blocks.
    const { wallet, publicClient } = viemClients(b.rpcUrl, 5);
    const deploy = await wallet.deployContract({
      abi: TestToken.abi,
      bytecode: TestToken.bytecode as `0x${string}`,
      args: ["Fork", "FRK", parseEther("100")],
    });
    await b.producer.mine(1);
    const token = (await publicClient.getTransactionReceipt({ hash: deploy })).contractAddress!;
    const ws = new WebSocket(b.wsUrl);
    const messages: { result: { removed?: boolean; number?: string }; subscription: string }[] = [];
    await new Promise((r) => ws.once("open", r));
    const subscribed = new Promise<string[]>((resolve) => {
      const ids: string[] = [];
      ws.on("message", (data) => {
        const message = JSON.parse(String(data));
        if (message.id !== undefined) {
          ids[message.id] = message.result;
          if (ids.filter(Boolean).length === 2) resolve(ids);
        } else messages.push(message.params);
      });
    });
    ws.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "eth_subscribe",
        params: ["logs", { address: token }],
      }),
    );
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"] }));
    const [logsId, headsId] = await subscribed;
    const transfer = await wallet.writeContract({
      address: token,
      abi: TestToken.abi,
      functionName: "transfer",
      args: [devAccount(6).address, 1n],
    });
    await b.producer.mine(1);
    await until("B's log", () => messages.some((m) => m.subscription === logsId));
    // A's branch is longer, every block sealed in turn: heavier.
    await a.producer.mine(4);
    const reorgs: Reorg[] = [];
    b.chain.events.on("reorg", (reorg) => reorgs.push(reorg));
    await b.network!.dial(a.network!.multiaddrs[0]!);
    await until("reorg", () => b.chain.head.header.number === 4n);
    expect(b.chain.head.hash()).toEqual(a.chain.head.hash());
    // One switch, as soon as A's branch outweighed B's (two in-turn blocks each: equal, then the lower
    // tip hash wins; or three against two); the rest of A's blocks then extend the new head.
    expect(reorgs).toHaveLength(1);
    expect(reorgs[0]!.removed.map((r) => r.block.header.number)).toEqual([1n, 2n]);
    expect(reorgs[0]!.added[0]!.block.hash()).toEqual(a.chain.blockByNumber(1n)!.hash());
    // The dropped blocks' transactions are back in the pool (and gossiped to A), their logs removed.
    expect(b.pool.get(deploy)).toBeDefined();
    expect(b.pool.get(transfer)).toBeDefined();
    await until("removed log", () =>
      messages.some((m) => m.subscription === logsId && m.result.removed === true),
    );
    await until("new heads", () => messages.filter((m) => m.subscription === headsId).length >= 5);
    const heads = messages.filter((m) => m.subscription === headsId).map((m) => Number(m.result.number));
    expect(heads.slice(-4)).toEqual([1, 2, 3, 4]);
    expect(await publicClient.getTransactionReceipt({ hash: transfer }).catch(() => null)).toBeNull();
    // Mined again on the winning branch, by A, and seen on B.
    await until("re-gossip", () => a.pool.get(deploy) !== undefined && a.pool.get(transfer) !== undefined);
    await a.producer.mine(1);
    await until("re-mined", () => b.chain.head.header.number === 5n);
    expect((await publicClient.getTransactionReceipt({ hash: transfer })).status).toBe("success");
    ws.close();
  });

  it("a node on a longer but lighter branch finds a heavier branch that is not ahead of it, and takes it", async () => {
    // B's four blocks are all sealed by one validator, mostly as a fallback: weight 4+3+2+1 = 10.
    const a = await startIsolated();
    const b = await startIsolated(["0", "1", "2"]);
    nodes.push(a, b);
    await b.producer.mine(4);
    // A's three blocks are sealed in turn: weight 3 x 4 = 12. A is not ahead of B, yet heavier.
    await a.producer.mine(3);
    const reorgs: Reorg[] = [];
    b.chain.events.on("reorg", (reorg) => reorgs.push(reorg));
    await b.network!.dial(a.network!.multiaddrs[0]!);
    await until("B on A's branch", () =>
      b.chain.head.hash().every((byte, i) => byte === a.chain.head.hash()[i]),
    );
    expect(b.chain.head.header.number).toBe(3n);
    expect(reorgs).toHaveLength(1);
    expect(reorgs[0]!.removed).toHaveLength(4);
    // A weighed B's branch too and kept its own.
    expect(a.chain.head.header.number).toBe(3n);
  });
});
