import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bytesToHex } from "@ethereumjs/util";
import { createPublicClient, http } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { loadNetwork } from "../config/network.js";
import { startTestNode } from "../testing/test-node.js";
import { attestationOf } from "./attestation.js";
import { attestsParent } from "./checkpoints.js";

const datadir = mkdtempSync(join(tmpdir(), "strata-finality-"));
afterAll(() => rmSync(datadir, { recursive: true, force: true }));

describe("fast finality on a dev chain", () => {
  it("every block attests its parent; safe trails the head by one block and finalized by two, on every tag", async () => {
    const t = await startTestNode({ mining: { mode: "manual" } });
    try {
      const client = createPublicClient({ transport: http(t.url) });
      expect((await client.getBlock({ blockTag: "finalized" })).number).toBe(0n);
      await t.node.producer.mine(8);
      for (let n = 1n; n <= 8n; n++) {
        const header = t.node.chain.blockByNumber(n)!.header;
        expect(attestsParent(header)).toBe(true);
        // All four genesis validators vote in dev: the bitmap names all four.
        expect(attestationOf(header)!.bitmap).toBe(0b1111n);
      }
      const safe = await client.getBlock({ blockTag: "safe" });
      const finalized = await client.getBlock({ blockTag: "finalized" });
      expect(safe.number).toBe(7n);
      expect(finalized.number).toBe(6n);
      expect(finalized.hash).toBe(bytesToHex(t.node.chain.blockByNumber(6n)!.hash()));
      // Tags reach every method taking a block: state reads at the finalized block.
      const dev = t.node.devAccounts[0]!.address as `0x${string}`;
      expect(await client.getBalance({ address: dev, blockTag: "finalized" })).toBe(
        await client.getBalance({ address: dev, blockNumber: 6n }),
      );
      const raw = (await client.request({
        method: "eth_getBlockByNumber" as never,
        params: ["finalized", false] as never,
      })) as { number: string };
      expect(raw.number).toBe("0x6");
      // Steady state: finalized never trails the head by more than two.
      for (let i = 0; i < 5; i++) {
        await t.node.producer.mine(1);
        const head = t.node.chain.head.header.number;
        expect(head - t.node.chain.finalized.header.number).toBeLessThanOrEqual(2n);
        expect(head - t.node.chain.safe.header.number).toBe(1n);
      }
    } finally {
      await t.stop();
    }
  });

  it("stops finalizing when validators holding a third of the stake are offline, and resumes", async () => {
    const t = await startTestNode({ mining: { mode: "manual" }, validator: { offline: ["0", "1"] } });
    try {
      // (Fewer blocks than it takes to jail them: a jailed validator leaves the active set, and the
      // remaining voters then hold all of its stake.)
      await t.node.producer.mine(2);
      // Two of four equal stakes vote: half, below two thirds. Nothing beyond genesis is justified.
      expect(t.node.chain.safe.header.number).toBe(0n);
      expect(t.node.chain.finalized.header.number).toBe(0n);
      t.node.consensus!.setOffline([]);
      await t.node.producer.mine(3);
      expect(t.node.chain.finalized.header.number).toBe(t.node.chain.head.header.number - 2n);
    } finally {
      await t.stop();
    }
  });

  it("keeps safe and finalized across a restart of an LMDB datadir", async () => {
    const first = await startTestNode({ datadir, mining: { mode: "manual" } });
    await first.node.producer.mine(5);
    const safe = first.node.chain.safe.hash();
    const finalized = first.node.chain.finalized.hash();
    expect(first.node.chain.finalized.header.number).toBe(3n);
    await first.stop();
    const second = await startTestNode({ datadir, mining: { mode: "manual" } });
    try {
      const client = createPublicClient({ transport: http(second.url) });
      expect((await client.getBlock({ blockTag: "safe" })).hash).toBe(bytesToHex(safe));
      expect((await client.getBlock({ blockTag: "finalized" })).hash).toBe(bytesToHex(finalized));
      await second.node.producer.mine(1);
      expect(second.node.chain.finalized.header.number).toBe(4n);
    } finally {
      await second.stop();
    }
  });

  it("on a network without consensus, safe and finalized are the head", async () => {
    const { system: _system, consensus: _consensus, ...plain } = loadNetwork("dev");
    const t = await startTestNode({ network: plain, mining: { mode: "manual" } });
    try {
      await t.node.producer.mine(3);
      const client = createPublicClient({ transport: http(t.url) });
      expect((await client.getBlock({ blockTag: "finalized" })).number).toBe(3n);
      expect((await client.getBlock({ blockTag: "safe" })).number).toBe(3n);
    } finally {
      await t.stop();
    }
  });
});
