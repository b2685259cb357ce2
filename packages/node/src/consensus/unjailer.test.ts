import type { BlockHeader } from "@ethereumjs/block";
import { describe, expect, it } from "vitest";
import { rpc } from "../e2e/clients.js";
import { startTestNode } from "../testing/test-node.js";
import { readJailEnd } from "./system-calls.js";
import { Unjailer } from "./unjailer.js";

interface ValidatorJson {
  address: string;
  status: string;
  jailed: boolean;
  blocksProposed: number;
}

describe("Unjailer", () => {
  it("a validator jailed for missed slots sends unjail() once its cool-down ends, and proposes again", async () => {
    const t = await startTestNode({ mining: { mode: "manual" }, validator: { offline: ["0"] } });
    const { node } = t;
    try {
      const validator = node.consensus!.offlineValidators[0]!;
      const key = node.consensus!.signerKeys.get(validator)!;
      const validators = async () =>
        ((await rpc(t.url, "svc_getValidators")).result as ValidatorJson[]).find(
          (v) => v.address === validator,
        )!;
      const jailEnd = (header: BlockHeader, address = validator) =>
        readJailEnd(node.chain.common, node.chain.states, header, address);
      await node.producer.mine(16);
      expect(await validators()).toMatchObject({ jailed: true, status: "jailed" });
      const end = await jailEnd(node.chain.head.header);
      expect(end).toBeGreaterThan(node.chain.head.header.number + 1n);

      // Back online: the unjailer waits out the cool-down, then sends unjail() from the validator's account.
      node.consensus!.setOffline([]);
      const unjailer = new Unjailer({
        chain: node.chain,
        pool: node.pool,
        common: node.chain.common,
        signers: new Map([[validator, key]]),
        isOffline: () => false,
        ready: () => true,
        inRotation: () => false,
        jailEnd,
        log: node.logger,
      });
      unjailer.start();
      while (node.chain.head.header.number + 2n < end!) {
        await node.producer.mine(1);
        expect(node.pool.size).toBe(0);
      }
      await node.producer.mine(1);
      await expect.poll(() => node.pool.size).toBe(1);
      await node.producer.mine(1);
      expect(await validators()).toMatchObject({ jailed: false, status: "active" });
      const before = (await validators()).blocksProposed;
      await node.producer.mine(8);
      expect((await validators()).blocksProposed).toBeGreaterThan(before);
      unjailer.stop();
    } finally {
      await t.stop();
    }
  });
});
