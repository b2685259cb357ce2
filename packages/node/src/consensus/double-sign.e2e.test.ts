import { bytesToHex } from "@ethereumjs/util";
import type { DoubleSignReport, Validator } from "@strata/protocol";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpc, viemClients } from "../e2e/clients.js";
import { startTestNode, type TestNode } from "../testing/test-node.js";
import { recoverSealer } from "./seal.js";

async function validators(t: TestNode): Promise<Validator[]> {
  return (await rpc(t.url, "svc_getValidators")).result as Validator[];
}

/** Sends the evidence's transaction from dev account 5 (any account may) and mines it. */
async function submit(t: TestNode, evidence: DoubleSignReport): Promise<void> {
  const { wallet, publicClient } = viemClients(t.url, 5);
  const hash = await wallet.sendTransaction({ to: evidence.to as `0x${string}`, data: evidence.data });
  await t.node.producer.mine(1);
  const receipt = await publicClient.getTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
}

describe("double signing", () => {
  let a: TestNode;
  let b: TestNode;
  beforeAll(async () => {
    // Two chains from one genesis, sealed with the same validator keys.
    a = await startTestNode({ mining: { mode: "manual" } });
    b = await startTestNode({ mining: { mode: "manual" } });
  });
  afterAll(async () => {
    await a.stop();
    await b.stop();
  });

  it("a validator sealing two different blocks at one height is caught, and any account's submission jails and slashes it", async () => {
    await viemClients(b.url, 1).wallet.sendTransaction({
      to: "0x000000000000000000000000000000000000dEaD",
      value: parseEther("1"),
    });
    await a.node.producer.mine(1);
    await b.node.producer.mine(1);
    const ours = a.node.chain.blockByNumber(1n)!;
    const theirs = b.node.chain.blockByNumber(1n)!;
    const sealer = recoverSealer(ours.header)!;
    expect(recoverSealer(theirs.header)).toBe(sealer);
    expect(bytesToHex(theirs.hash())).not.toBe(bytesToHex(ours.hash()));

    // What the network does with a header it receives: the gadget compares it with the seals it saw.
    await a.node.finality!.onImportedHeader(theirs.header);
    const evidence = (await rpc(a.url, "svc_getDoubleSignEvidence")).result as DoubleSignReport[];
    expect(evidence).toHaveLength(1);
    expect(evidence[0]).toMatchObject({
      kind: "seal",
      validator: sealer,
      number: "0x1",
      hashes: [bytesToHex(ours.hash()), bytesToHex(theirs.hash())],
    });

    const before = (await validators(a)).find((v) => v.address === sealer)!;
    expect(before.status).toBe("active");
    await submit(a, evidence[0]!);
    const after = (await validators(a)).find((v) => v.address === sealer)!;
    expect(after).toMatchObject({ status: "jailed", jailed: true });
    expect(BigInt(after.selfStake)).toBe((BigInt(before.selfStake) * 9n) / 10n);
    // The chain goes on without it.
    await a.node.producer.mine(3);
    for (let n = 3n; n <= 5n; n++)
      expect(recoverSealer(a.node.chain.blockByNumber(n)!.header)).not.toBe(sealer);
  });
});

describe("double signing: the test-only switch", () => {
  it("--test.double-sign makes the local validators sign two votes per height; the evidence slashes them", async () => {
    const t = await startTestNode({ mining: { mode: "manual" }, validator: { testDoubleSign: true } });
    try {
      await t.node.producer.mine(2);
      const evidence = (await rpc(t.url, "svc_getDoubleSignEvidence")).result as DoubleSignReport[];
      const votes = evidence.filter((e) => e.kind === "vote");
      // Four validators at genesis and at block 1 at least.
      expect(votes.length).toBeGreaterThanOrEqual(8);
      // The first vote of each validator is the real one, so blocks still justify and finalize.
      expect(t.node.chain.safe.header.number).toBe(1n);
      const target = votes[0]!;
      await submit(t, target);
      const slashed = (await validators(t)).find((v) => v.address === target.validator)!;
      expect(slashed.status).toBe("jailed");
      // Submitting the same offence again reverts.
      const again = await rpc(t.url, "eth_call", [{ to: target.to, data: target.data }, "latest"]);
      expect(again.error?.code).toBe(3);
    } finally {
      await t.stop();
    }
  });
});
