import { Writable } from "node:stream";
import { createBlob4844Tx } from "@ethereumjs/tx";
import { bytesToHex } from "@ethereumjs/util";
import type { Libp2p, PubSub } from "@libp2p/interface";
import { multiaddr } from "@multiformats/multiaddr";
import { pino } from "pino";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testConfig } from "../config/node-config.js";
import { devAccount } from "../e2e/clients.js";
import { createNode, type StrataNode } from "../node.js";
import { withResealedField } from "../testing/forged-blocks.js";
import { createHostileHost } from "../testing/hostile-host.js";
import { writeFrames } from "./streams.js";
import { encodeTransactionBatch, PROTOCOLS, refOf, topicsFor } from "./wire.js";

async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("hostile peers", () => {
  let node: StrataNode;
  let hostile: Libp2p<{ pubsub: PubSub }>;
  const lines: string[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    node = await createNode(
      testConfig({
        mining: { mode: "manual" },
        p2p: { enabled: true, port: 0, addr: "127.0.0.1", bootnodes: [] },
      }),
      pino({ level: "info" }, sink),
    );
    await node.start();
    await node.producer.mine(3);
    // It passes the handshake (it claims the node's own chain), so only its messages give it away.
    hostile = await createHostileHost(() => ({
      chainId: 1337,
      genesis: bytesToHex(node.chain.genesis.hash()),
      head: refOf(node.chain.head),
      finalized: refOf(node.chain.genesis),
    }));
  });

  afterAll(async () => {
    await hostile?.stop();
    await node?.stop();
  });

  it("rejects garbage, oversized frames, badly sealed blocks and duplicate floods, disconnects the sender, stays live", async () => {
    // Made first: computing its KZG commitment and proof blocks the thread for seconds.
    const blob = createBlob4844Tx(
      {
        to: devAccount(3).address,
        gasLimit: 50_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 10n ** 9n,
        maxFeePerBlobGas: 1_000n,
        blobsData: ["forged"],
      },
      { common: node.chain.common },
    ).sign(devAccount(6).getHdKey().privateKey!);
    const topics = topicsFor(node.chain.genesis.hash());
    for (const topic of [topics.blocks, topics.transactions]) hostile.services.pubsub.subscribe(topic);
    await hostile.dial(multiaddr(node.network!.multiaddrs[0]!));
    await until("handshake", () => node.network!.peerCount === 1);
    await until("gossip mesh", () =>
      hostile.services.pubsub
        .getSubscribers(topics.blocks)
        .some((p) => p.toString() === node.network!.peerId),
    );
    // A flood of one valid transaction: admitted once.
    const raw = await devAccount(2).signTransaction({
      chainId: 1337,
      type: "eip1559",
      to: devAccount(3).address,
      value: parseEther("1"),
      nonce: 0,
      gas: 21_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 10n ** 9n,
    });
    const bytes = encodeTransactionBatch([Buffer.from(raw.slice(2), "hex")]);
    for (let i = 0; i < 50; i++)
      await hostile.services.pubsub.publish(topics.transactions, bytes).catch(() => {});
    await until("the transaction", () => node.pool.size === 1);
    // Blob transactions without their sidecar, or with a proof that does not verify.
    const forgedProof = blob.serializeNetworkWrapper();
    forgedProof[forgedProof.length - 5] = forgedProof[forgedProof.length - 5]! ^ 0x01;
    for (const bad of [blob.serialize(), forgedProof])
      await hostile.services.pubsub
        .publish(topics.transactions, encodeTransactionBatch([bad]))
        .catch(() => {});
    // Garbage on the status protocol and an oversized frame on blocks-by-range.
    const peer = hostile.getConnections()[0]!.remotePeer;
    const garbage = await hostile.dialProtocol(peer, PROTOCOLS.status);
    await writeFrames(garbage, [new TextEncoder().encode("{not json")]).catch(() => {});
    const oversized = await hostile.dialProtocol(peer, PROTOCOLS.blocksByRange);
    await writeFrames(oversized, [new Uint8Array(64 * 1024)]).catch(() => {});
    // Blocks whose seal is not their miner's, each different.
    const head = node.chain.head;
    for (let i = 0; i < 4; i++) {
      const forged = withResealedField(head, 3, new Uint8Array(32).fill(i + 1), new Uint8Array(32).fill(7));
      await hostile.services.pubsub.publish(topics.blocks, forged.serialize()).catch(() => {});
    }
    await until("disconnect", () =>
      lines.some((l) => l.includes("disconnecting peer: score below the threshold")),
    );
    await until("peer gone", () => node.network!.peerCount === 0);
    expect(lines.some((l) => l.includes("gossiped block rejected") && l.includes("sealed by"))).toBe(true);
    // Banned: it cannot come straight back.
    await hostile.dial(multiaddr(node.network!.multiaddrs[0]!)).catch(() => {});
    await new Promise((r) => setTimeout(r, 500));
    expect(node.network!.peerCount).toBe(0);
    // Still live: it answers and mines the flooded transaction once.
    await node.producer.mine(1);
    expect(node.chain.head.header.number).toBe(4n);
    expect(node.chain.head.transactions).toHaveLength(1);
    expect(node.pool.get(bytesToHex(blob.hash()))).toBeUndefined();
    expect(node.pool.size).toBe(0);
  });
});
