import { describe, expect, it } from "vitest";
import { loadNetwork, parseNetwork } from "../config/network.js";
import { blockRewardFromIssuance, genesisSupply } from "./issuance.js";

const STRA = 10n ** 18n;
const YEAR_SECONDS = 365 * 24 * 3600;

describe("issuance", () => {
  it("converts an annual inflation of the genesis supply into a per-block reward", () => {
    const reward = blockRewardFromIssuance({
      issuance: { annualInflation: "0.08" },
      genesisSupply: 400_000n * STRA,
      blockTimeSeconds: 2,
    });
    // 400,000 STRA x 8 % = 32,000 STRA a year over 15,768,000 two-second blocks.
    expect(reward).toBe((32_000n * STRA) / 15_768_000n);
    expect(
      blockRewardFromIssuance({
        issuance: { annualInflation: "0" },
        genesisSupply: STRA,
        blockTimeSeconds: 2,
      }),
    ).toBe(0n);
  });

  it("counts alloc balances (hex or decimal) and the genesis self-stake as the genesis supply", () => {
    expect(genesisSupply({ a: { balance: "0x10" }, b: { balance: "16" } }, ["100"])).toBe(132n);
  });

  it("gives mainnet an APR between 5 and 15 % at its genesis stake", () => {
    const mainnet = loadNetwork("mainnet");
    const staking = mainnet.system!.staking;
    const reward = BigInt(staking.blockReward!);
    const staked = staking.validators.reduce((sum, v) => sum + BigInt(v.selfStake), 0n);
    const blocksPerYear = BigInt(YEAR_SECONDS / mainnet.mining.blockTime);
    const apr = Number((reward * blocksPerYear * 1_000_000n) / staked) / 1_000_000;
    expect(apr).toBeGreaterThanOrEqual(0.05);
    expect(apr).toBeLessThanOrEqual(0.15);
    expect(apr).toBeCloseTo(0.08, 4);
  });

  it("refuses a staking section with both or neither of blockReward and issuance", () => {
    const dev = structuredClone(loadNetwork("dev")) as unknown as {
      system: { staking: Record<string, unknown> };
    };
    dev.system.staking.issuance = { annualInflation: "0.05" };
    expect(() => parseNetwork(dev, "both")).toThrow(/either blockReward or issuance/);
    delete dev.system.staking.issuance;
    delete dev.system.staking.blockReward;
    expect(() => parseNetwork(dev, "neither")).toThrow(/either blockReward or issuance/);
  });
});
