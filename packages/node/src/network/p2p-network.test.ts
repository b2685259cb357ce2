import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { type Blob4844Tx, createBlob4844Tx } from "@ethereumjs/tx";
import { bytesToHex } from "@ethereumjs/util";
import { pino } from "pino";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadNetwork } from "../config/network.js";
import { type NodeConfigOverrides, testConfig } from "../config/node-config.js";
import { devAccount, viemClients } from "../e2e/clients.js";
import { createNode, type StrataNode } from "../node.js";

/** A node with p2p on 127.0.0.1 (free port), its log lines captured. */
async function startPeer(overrides: NodeConfigOverrides = {}, bootnodes: string[] = []) {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const config = testConfig({
    mining: { mode: "manual" },
    ...overrides,
    p2p: { enabled: true, port: 0, addr: "127.0.0.1", bootnodes, ...overrides.p2p },
  });
  const node = await createNode(config, pino({ level: "info" }, sink));
  await node.start();
  return { node, lines };
}

async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function call(
  node: StrataNode,
  method: string,
  params: unknown[] = [],
): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const res = await fetch(node.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
}

async function rpc(node: StrataNode, method: string, params: unknown[] = []): Promise<unknown> {
  return (await call(node, method, params)).result;
}

describe("p2p network: handshake, sync by range, gossip", () => {
  let a: Awaited<ReturnType<typeof startPeer>>;
  let b: Awaited<ReturnType<typeof startPeer>>;
  const nodes: StrataNode[] = [];
  const datadir = mkdtempSync(join(tmpdir(), "strata-p2p-"));

  let blobTx: Blob4844Tx;

  beforeAll(async () => {
    a = await startPeer();
    nodes.push(a.node);
    await a.node.producer.mine(150);
    // Made before any request: computing its KZG commitment and proof blocks the thread for seconds,
    // long enough for the servers in this process to close the idle keep-alive sockets.
    blobTx = createBlob4844Tx(
      {
        nonce: 0n,
        to: devAccount(4).address,
        gasLimit: 50_000n,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
        maxFeePerBlobGas: 1_000n,
        blobsData: ["a blob over gossip"],
      },
      { common: a.node.chain.common },
    ).sign(devAccount(5).getHdKey().privateKey!);
  });

  afterAll(async () => {
    for (const node of nodes) await node.stop();
    rmSync(datadir, { recursive: true, force: true });
  });

  it("an empty node syncs from its bootnode by range, and both count each other as peers", async () => {
    b = await startPeer({ datadir, rpc: { callWorkers: 0 } }, a.node.network!.multiaddrs);
    nodes.push(b.node);
    await until("sync", () => b.node.chain.head.header.number === 150n);
    expect(b.node.chain.head.hash()).toEqual(a.node.chain.head.hash());
    expect(await rpc(a.node, "net_peerCount")).toBe("0x1");
    expect(await rpc(b.node, "net_peerCount")).toBe("0x1");
    expect(await rpc(b.node, "net_listening")).toBe(true);
    const health = (await (await fetch(`${b.node.rpcUrl}/health`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ status: "ok", head: 150, peers: 1, p2p: "listening" });
    expect(await (await fetch(`${a.node.rpcUrl}/metrics`)).text()).toMatch(/^strata_p2p_peers 1$/m);
  });

  it("gossips a transaction sent to one node into the other's pool, and the mined block back", async () => {
    const { wallet, publicClient } = viemClients(b.node.rpcUrl, 3);
    const hash = await wallet.sendTransaction({ to: devAccount(4).address, value: parseEther("1") });
    await until("tx gossip", () => a.node.pool.get(hash) !== undefined);
    await a.node.producer.mine(1);
    await until("block gossip", () => b.node.chain.head.header.number === 151n);
    expect((await publicClient.getTransactionReceipt({ hash })).blockNumber).toBe(151n);
    expect(b.node.pool.size).toBe(0);
    // The relayed block is B's head, not announced back as B's own.
    expect(b.node.chain.head.hash()).toEqual(a.node.chain.head.hash());
  });

  it("gossips a blob transaction with its sidecar: verified on arrival, pooled with its blobs, mined", async () => {
    const tx = blobTx;
    const wrapped = tx.serializeNetworkWrapper();
    // Beyond the 128 KiB every other transaction is held to.
    expect(wrapped.length).toBeGreaterThan(128 * 1024);
    const hash = bytesToHex(tx.hash());
    expect(await rpc(b.node, "eth_sendRawTransaction", [bytesToHex(wrapped)])).toBe(hash);
    await until("blob tx gossip", () => a.node.pool.get(hash) !== undefined);
    const pooled = a.node.pool.get(hash)!.tx as Blob4844Tx;
    expect(pooled.blobs).toEqual(tx.blobs);
    expect(pooled.kzgProofs).toEqual(tx.kzgProofs);
    await a.node.producer.mine(1);
    await until("block gossip", () => b.node.chain.head.header.number === 152n);
    const receipt = (await rpc(b.node, "eth_getTransactionReceipt", [hash])) as Record<string, unknown>;
    expect(receipt).toMatchObject({ status: "0x1", blockNumber: "0x98" });
  });

  it("a restarted node keeps its identity, catches up by range and follows by gossip", async () => {
    const peerId = b.node.network!.peerId;
    await b.node.stop();
    nodes.splice(nodes.indexOf(b.node), 1);
    await a.node.producer.mine(70);
    b = await startPeer({ datadir, rpc: { callWorkers: 0 } }, a.node.network!.multiaddrs);
    nodes.push(b.node);
    expect(b.node.network!.peerId).toBe(peerId);
    expect(b.node.chain.head.header.number).toBe(152n);
    await until("catch-up", () => b.node.chain.head.header.number === 222n);
    await a.node.producer.mine(1);
    await until("gossip after sync", () => b.node.chain.head.header.number === 223n);
    expect(b.node.chain.head.hash()).toEqual(a.node.chain.head.hash());
  });

  it("drops a peer on another chain with a log line saying why", async () => {
    const other = loadNetwork("dev");
    const c = await startPeer({ network: { ...other, chainId: 4242 } }, a.node.network!.multiaddrs);
    nodes.push(c.node);
    await until("mismatch log", () => c.lines.some((l) => l.includes("dropping peer on another chain")));
    expect(c.lines.find((l) => l.includes("dropping peer on another chain"))).toMatch(
      /network 1337, ours is 4242/,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(c.node.network!.peerCount).toBe(0);
  });

  it("test_setDeniedPeers (with --test.peer-deny only) cuts a peer off, bootnode or not, until the list is emptied", async () => {
    const d = await startPeer({ p2p: { testPeerDeny: true } }, a.node.network!.multiaddrs);
    nodes.push(d.node);
    const peerOf = (node: StrataNode) => node.network!.peerId;
    await until("d joined", () => d.node.network!.peerCount === 1);
    expect(await rpc(d.node, "test_setDeniedPeers", [[peerOf(a.node)]])).toBe(1);
    expect(d.node.network!.peerCount).toBe(0);
    // Neither its bootnode redial (every 3 s) nor the other side's dial gets through.
    await a.node.network!.dial(d.node.network!.multiaddrs[0]!).catch(() => {});
    await new Promise((r) => setTimeout(r, 3_500));
    expect(d.node.network!.peerCount).toBe(0);
    expect(await rpc(d.node, "test_setDeniedPeers", [[]])).toBe(0);
    await until("d back", () => d.node.network!.peerCount === 1);
    // A node started without the switch does not serve it.
    const refused = await call(a.node, "test_setDeniedPeers", [[peerOf(d.node)]]);
    expect(refused.error).toMatchObject({ code: -32601 });
    expect(refused.error!.message).toMatch(/--test.peer-deny/);
    expect(a.node.network!.peerCount).toBeGreaterThan(0);
  });
});
