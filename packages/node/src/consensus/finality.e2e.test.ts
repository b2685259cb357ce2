import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Block } from "@ethereumjs/block";
import { bytesToHex, concatBytes } from "@ethereumjs/util";
import { createPublicClient, http } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, describe, expect, it } from "vitest";
import { loadNetwork } from "../config/network.js";
import { DEV_MNEMONIC } from "../e2e/clients.js";
import { startTestNode } from "../testing/test-node.js";
import { attestationOf, encodeAttestation, recoverVoter } from "./attestation.js";
import { attestsParent } from "./checkpoints.js";
import { addressOfPrivateKey, DEFAULT_VANITY, recoverSealer, sealBlock, withExtraData } from "./seal.js";

const chainId = BigInt(loadNetwork("dev").chainId);

const datadir = mkdtempSync(join(tmpdir(), "strata-finality-"));
afterAll(() => rmSync(datadir, { recursive: true, force: true }));

describe("fast finality on a dev chain", () => {
  it("every block attests its parent; safe trails the head by one block and finalized by two, on every tag", async () => {
    const t = await startTestNode({ mining: { mode: "manual" } });
    try {
      const client = createPublicClient({ transport: http(t.url) });
      expect((await client.getBlock({ blockTag: "finalized" })).number).toBe(0n);
      // One block at a time (a run of empty blocks attests only in its last two: mining-runs.test.ts).
      for (let i = 0; i < 8; i++) await t.node.producer.mine(1);
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
      // Long enough for both to be jailed for missed slots: jailing takes a validator out of the
      // rotation, not out of the voters, so the two that remain never hold two thirds on their own.
      await t.node.producer.mine(20);
      const validators = (await createPublicClient({ transport: http(t.url) }).request({
        method: "svc_getValidators" as never,
      })) as { jailed: boolean }[];
      expect(validators.filter((v) => v.jailed)).toHaveLength(2);
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

  it("a node with one validator key votes with that key only", async () => {
    const key = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 101 }).getHdKey().privateKey!;
    const t = await startTestNode({ mining: { mode: "manual" }, validator: { key } });
    try {
      const voters = new Set<string>();
      t.node.finality!.events.on("vote", (vote) => voters.add(recoverVoter(chainId, vote)!));
      await t.node.producer.mine(2);
      expect([...voters]).toEqual([addressOfPrivateKey(key)]);
      // One of four validators: a quarter of the stake, nothing justified without the others' votes.
      expect(t.node.chain.head.header.number).toBe(2n);
      expect(t.node.chain.safe.header.number).toBe(0n);
      expect(attestationOf(t.node.chain.head.header)).toBeUndefined();
    } finally {
      await t.stop();
    }
  });

  it("a verifying node rejects a block whose attestation lacks two thirds, and tracks finality from the blocks it imports", async () => {
    const source = await startTestNode({ mining: { mode: "manual" } });
    const follower = await startTestNode({ follow: "http://127.0.0.1:9", mining: { mode: "manual" } });
    try {
      await source.node.producer.mine(3);
      const [one, two, three] = [1n, 2n, 3n].map((n) => source.node.chain.blockByNumber(n)!);
      await follower.node.follower!.importBlock(one!);
      // Block 2 with its attestation cut to two of four signatures, sealed again by its proposer.
      const attestation = attestationOf(two!.header)!;
      const weak = encodeAttestation({
        ...attestation,
        bitmap: 0b0011n,
        signatures: attestation.signatures.slice(0, 2),
      });
      const unsealed = new Block(
        withExtraData(two!.header, concatBytes(DEFAULT_VANITY, weak)),
        two!.transactions,
        [],
        two!.withdrawals,
        { common: two!.common },
      );
      const proposer = recoverSealer(two!.header)!;
      const key = [100, 101, 102, 103]
        .map((i) => mnemonicToAccount(DEV_MNEMONIC, { addressIndex: i }).getHdKey().privateKey!)
        .find((k) => addressOfPrivateKey(k) === proposer)!;
      await expect(follower.node.follower!.importBlock(sealBlock(unsealed, key))).rejects.toThrow(
        /less than two thirds/,
      );
      await follower.node.follower!.importBlock(two!);
      await follower.node.follower!.importBlock(three!);
      expect(follower.node.chain.safe.hash()).toEqual(two!.hash());
      expect(follower.node.chain.finalized.hash()).toEqual(one!.hash());
    } finally {
      await follower.stop();
      await source.stop();
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
