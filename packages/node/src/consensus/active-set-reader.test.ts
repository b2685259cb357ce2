import { describe, expect, it } from "vitest";
import { startTestNode } from "../testing/test-node.js";
import { readActiveSetAfter } from "./system-calls.js";

describe("ActiveSetReader", () => {
  it("answers after every block as the Staking contract does, through a validator's jailing, and reuses the set while it holds", async () => {
    // Validator 0 misses its slots until it is jailed (the dev network jails after 3 in a row).
    const t = await startTestNode({ mining: { mode: "manual" }, validator: { offline: ["0"] } });
    try {
      const { chain, consensus } = t.node;
      let jailedAt: bigint | undefined;
      let reused = 0;
      let previous: unknown;
      for (let i = 0; i < 16; i++) {
        await t.node.producer.mine(1);
        const header = chain.head.header;
        // What the producer's reader answered at the end of the block, against a fresh read of the contract.
        const answered = consensus!.cachedActiveSetAfter(header);
        const truth = await readActiveSetAfter(chain.common, chain.states, header);
        expect(answered, `block ${header.number}`).toEqual(truth);
        if (jailedAt === undefined && truth.some((v) => v.jailed)) jailedAt = header.number;
        // The counters beside `jailed` change with every block: the same answer is the reused one.
        if (answered === previous) reused++;
        previous = answered;
      }
      expect(jailedAt, "validator 0 was jailed").toBeDefined();
      // Every block but the first and the one that jailed validator 0 (an epoch end may add one).
      expect(reused).toBeGreaterThanOrEqual(12);
    } finally {
      await t.stop();
    }
  });
});
