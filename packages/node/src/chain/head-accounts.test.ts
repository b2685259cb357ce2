import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestNode, type TestNode } from "../testing/test-node.js";

describe("Chain head-account map", () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode();
  });
  afterAll(async () => {
    await node.stop();
  });

  it("never holds more than its bound of accounts read at the head", async () => {
    const chain = node.node.chain;
    const structure = chain.boundedStructures().find((s) => s.name === "head_accounts")!;
    expect(structure.bound).toBe(100_000);
    let largest = 0;
    for (let i = 0; i < structure.bound + 5_000; i++) {
      await chain.account(chain.head, `0x${i.toString(16).padStart(40, "0")}`);
      largest = Math.max(largest, structure.size());
    }
    expect(largest).toBe(structure.bound);
    expect(structure.size()).toBeLessThanOrEqual(structure.bound);
  }, 120_000);
});
