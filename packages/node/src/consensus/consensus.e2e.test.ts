import { STAKING_ADDRESS, Staking } from "@strata/contracts";
import { createPublicClient, http, parseEther } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadNetwork } from "../config/network.js";
import { DEV_MNEMONIC } from "../e2e/clients.js";
import { startTestNode, type TestNode } from "../testing/test-node.js";
import { NotYourTurnError } from "./errors.js";
import { recoverSealer } from "./seal.js";

const genesisValidators = [100, 101, 102, 103].map((i) =>
  mnemonicToAccount(DEV_MNEMONIC, { addressIndex: i }),
);
const addresses = genesisValidators.map((a) => a.address.toLowerCase());

async function validatorInfo(t: TestNode, address: string) {
  const client = createPublicClient({ transport: http(t.url) });
  return client.readContract({
    address: STAKING_ADDRESS,
    abi: Staking.abi,
    functionName: "getValidator",
    args: [address as `0x${string}`],
  });
}

describe("proof-of-stake dev chain", () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode({ mining: { mode: "manual" } });
  });
  afterAll(() => t.stop());

  it("seals every block by a genesis validator named as miner and records one slot per block", async () => {
    await t.node.producer.mine(25);
    for (let n = 1n; n <= 25n; n++) {
      const block = t.node.chain.blockByNumber(n)!;
      const sealer = recoverSealer(block.header);
      expect(sealer).toBe(block.header.coinbase.toString());
      expect(addresses).toContain(sealer);
    }
    const client = createPublicClient({ transport: http(t.url) });
    const slots = await client.readContract({
      address: STAKING_ADDRESS,
      abi: Staking.abi,
      functionName: "slotCount",
    });
    expect(slots).toBe(25n);
  });

  it("distributes the epoch's block rewards in its last block", async () => {
    const client = createPublicClient({ transport: http(t.url) });
    const distributed = await client.readContract({
      address: STAKING_ADDRESS,
      abi: Staking.abi,
      functionName: "totalRewardsDistributed",
    });
    // Epoch 0 is blocks 1..19 (genesis has no reward); no transactions, so no fees.
    expect(distributed).toBe(parseEther("2") * 19n);
  });

  it("lets the next validator seal an offline validator's slots and counts them as missed", async () => {
    const offline = addresses[0]!;
    t.node.consensus!.setOffline([offline]);
    const before = await validatorInfo(t, offline);
    const start = t.node.chain.head.header.number;
    await t.node.producer.mine(8);
    for (let n = start + 1n; n <= start + 8n; n++) {
      expect(t.node.chain.blockByNumber(n)!.header.coinbase.toString()).not.toBe(offline);
    }
    const after = await validatorInfo(t, offline);
    expect(after.blocksMissed).toBeGreaterThan(before.blocksMissed);
    expect(after.blocksProposed).toBe(before.blocksProposed);
    t.node.consensus!.setOffline([]);
  });
});

describe("consensus settings", () => {
  it("a node with one validator key seals only as that validator", async () => {
    const key = genesisValidators[1]!.getHdKey().privateKey!;
    const t = await startTestNode({ mining: { mode: "manual" }, validator: { key } });
    try {
      await t.node.producer.mine(6);
      for (let n = 1n; n <= 6n; n++) {
        expect(t.node.chain.blockByNumber(n)!.header.coinbase.toString()).toBe(addresses[1]);
      }
      const others = await validatorInfo(t, addresses[0]!);
      expect(others.blocksProposed).toBe(0n);
    } finally {
      await t.stop();
    }
  });

  it("a validator node on an interval waits for its turn instead of sealing another's slot early", async () => {
    const key = genesisValidators[2]!.getHdKey().privateKey!;
    const t = await startTestNode({
      mining: { mode: "interval", blockTimeSeconds: 3600 },
      validator: { key },
    });
    try {
      let refused: unknown;
      for (let i = 0; i < 8 && refused === undefined; i++) {
        await t.node.producer.mine(1).catch((error: unknown) => {
          refused = error;
        });
      }
      expect(refused).toBeInstanceOf(NotYourTurnError);
      const head = t.node.chain.head.header.number;
      for (let n = 1n; n <= head; n++) {
        expect(t.node.chain.blockByNumber(n)!.header.coinbase.toString()).toBe(addresses[2]);
      }
    } finally {
      await t.stop();
    }
  });

  it("resolves offline validators by genesis index and refuses unknown entries", async () => {
    const t = await startTestNode({ mining: { mode: "manual" }, validator: { offline: ["2"] } });
    try {
      expect(t.node.consensus!.offlineValidators).toEqual([addresses[2]]);
    } finally {
      await t.stop();
    }
    await expect(startTestNode({ validator: { offline: ["9"] } })).rejects.toThrow(/genesis validators/);
    await expect(startTestNode({ validator: { offline: ["nobody"] } })).rejects.toThrow(/expected an index/);
  });

  it("a network without the Strata sections makes plain blocks: coinbase zero, no seal, no consensus", async () => {
    const { system: _system, consensus: _consensus, ...plain } = loadNetwork("dev");
    const t = await startTestNode({ network: plain, mining: { mode: "manual" } });
    try {
      expect(t.node.consensus).toBeUndefined();
      await t.node.producer.mine(2);
      const block = t.node.chain.blockByNumber(2n)!;
      expect(block.header.coinbase.toString()).toBe(`0x${"00".repeat(20)}`);
      expect(block.header.extraData).toHaveLength(0);
      const client = createPublicClient({ transport: http(t.url) });
      expect(await client.getCode({ address: STAKING_ADDRESS })).toBeUndefined();
    } finally {
      await t.stop();
    }
  });
});
