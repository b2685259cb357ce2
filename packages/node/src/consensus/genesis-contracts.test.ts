import { PriceOracle, STAKING_ADDRESS, Staking } from "@strata/contracts";
import { createPublicClient, http, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestNode, type TestNode } from "../testing/test-node.js";

describe("dev genesis with system contracts", () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode({ mining: { mode: "manual" } });
  });
  afterAll(() => t.stop());

  it("places Staking with the four genesis validators active", async () => {
    const client = createPublicClient({ transport: http(t.url) });
    const [validators, stakes] = await client.readContract({
      address: STAKING_ADDRESS,
      abi: Staking.abi,
      functionName: "activeValidators",
    });
    expect(validators).toHaveLength(4);
    expect(stakes.every((s) => s === parseEther("5000"))).toBe(true);
    expect(await client.getBalance({ address: STAKING_ADDRESS })).toBe(parseEther("20000"));
    const assets = await client.readContract({
      address: "0x0000000000000000000000000000000000003000",
      abi: PriceOracle.abi,
      functionName: "assets",
    });
    expect(assets).toEqual(["STRA", "BTC", "ETH"]);
  });
});
