import { describe, expect, it } from "vitest";
import { DePINRegistry, PriceOracle, Staking } from "./artifacts.js";
import {
  DEPIN_REGISTRY_ADDRESS,
  PRICE_ORACLE_ADDRESS,
  STAKING_ADDRESS,
  SYSTEM_ADDRESS,
  VALIDATOR_STATUS,
} from "./constants.js";
import {
  DEFAULT_DEPIN_REGISTRY_CONFIG,
  DEFAULT_PRICE_ORACLE_CONFIG,
  DEFAULT_STAKING_CONFIG,
  encodeDistributeRewards,
  encodeRecordSlot,
  formatCommission,
  parseCommission,
  type SystemContractsGenesis,
  systemPredeploys,
} from "./deploy.js";
import { TestEvm, testAccount } from "./testing/evm.js";

const STRA = 10n ** 18n;
const VALIDATOR = testAccount(51);
const REPORTER = testAccount(52);

const GENESIS: SystemContractsGenesis = {
  staking: {
    config: DEFAULT_STAKING_CONFIG,
    validators: [{ validator: VALIDATOR, commission: parseCommission("0.05"), selfStake: 10_000n * STRA }],
  },
  depinRegistry: DEFAULT_DEPIN_REGISTRY_CONFIG,
  priceOracle: { ...DEFAULT_PRICE_ORACLE_CONFIG, admin: REPORTER, reporters: [REPORTER] },
};

async function genesis() {
  const evm = await TestEvm.create();
  evm.setBlock(0n);
  for (const p of systemPredeploys(GENESIS)) await evm.deployAt(p.address, p);
  evm.mine();
  return evm;
}

describe("genesis predeploys", () => {
  it("places the three system contracts at their fixed addresses with working state", async () => {
    const evm = await genesis();
    expect(systemPredeploys(GENESIS).map((p) => [p.name, p.address])).toEqual([
      ["Staking", STAKING_ADDRESS],
      ["DePINRegistry", DEPIN_REGISTRY_ADDRESS],
      ["PriceOracle", PRICE_ORACLE_ADDRESS],
    ]);
    expect(await evm.balance(STAKING_ADDRESS)).toBe(10_000n * STRA);
    const [active] = await evm.read({
      address: STAKING_ADDRESS,
      abi: Staking.abi,
      functionName: "activeValidators",
    });
    expect(active).toEqual([VALIDATOR]);
    const v = await evm.read({
      address: STAKING_ADDRESS,
      abi: Staking.abi,
      functionName: "getValidator",
      args: [VALIDATOR],
    });
    expect(VALIDATOR_STATUS[v.status]).toBe("active");
    expect(formatCommission(v.commission)).toBe("0.05");
    expect(
      await evm.read({ address: DEPIN_REGISTRY_ADDRESS, abi: DePINRegistry.abi, functionName: "config" }),
    ).toEqual(DEFAULT_DEPIN_REGISTRY_CONFIG);
    expect(
      await evm.read({ address: PRICE_ORACLE_ADDRESS, abi: PriceOracle.abi, functionName: "assets" }),
    ).toEqual(["STRA", "BTC", "ETH"]);
    // the oracle reaches the staking predeploy: the genesis validator may report
    expect(
      await evm.read({
        address: PRICE_ORACLE_ADDRESS,
        abi: PriceOracle.abi,
        functionName: "isReporter",
        args: [VALIDATOR],
      }),
    ).toBe(true);
  });

  it("runtime code does not depend on the deployment address", async () => {
    const evm = await genesis();
    for (const p of systemPredeploys(GENESIS)) {
      const created = await evm.deploy(p);
      expect(await evm.code(created)).toBe(await evm.code(p.address));
    }
  });

  it("accepts the system calls encoded by the helpers", async () => {
    const evm = await genesis();
    await evm.call({ to: STAKING_ADDRESS, from: SYSTEM_ADDRESS, data: encodeRecordSlot(VALIDATOR) });
    evm.setBlock(DEFAULT_STAKING_CONFIG.epochLength - 1n);
    const reward = (DEFAULT_STAKING_CONFIG.epochLength - 1n) * DEFAULT_STAKING_CONFIG.blockReward;
    await evm.call({
      to: STAKING_ADDRESS,
      from: SYSTEM_ADDRESS,
      data: encodeDistributeRewards(),
      value: reward,
      mintValue: true,
    });
    expect(
      await evm.read({
        address: STAKING_ADDRESS,
        abi: Staking.abi,
        functionName: "pendingRewards",
        args: [VALIDATOR],
      }),
    ).toBe(reward);
    expect(await evm.balance(STAKING_ADDRESS)).toBe(10_000n * STRA + reward);
    const [slot] = await evm.read({
      address: STAKING_ADDRESS,
      abi: Staking.abi,
      functionName: "recentSlots",
      args: [1n],
    });
    expect(slot).toEqual({ blockNumber: 1n, proposer: VALIDATOR, missed: [] });
  });
});
