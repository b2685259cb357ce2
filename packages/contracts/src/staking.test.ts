import {
  type Address,
  concat,
  encodeAbiParameters,
  type Hex,
  keccak256,
  parseAbiParameters,
  serializeSignature,
  toFunctionSelector,
  toHex,
  toRlp,
} from "viem";
import { privateKeyToAccount, sign } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { Staking } from "./artifacts.js";
import { STAKING_ADDRESS, SYSTEM_ADDRESS } from "./constants.js";
import { type GenesisValidator, type StakingConfig, stakingCreationCode } from "./deploy.js";
import { type CallResult, TestEvm, testAccount } from "./testing/evm.js";

const STRA = 10n ** 18n;
const PCT = 10n ** 16n; // one percent in 1e18 fixed point
const abi = Staking.abi;
const address = STAKING_ADDRESS;

const V1 = testAccount(11);
const V2 = testAccount(12);
const V3 = testAccount(13);
const V4 = testAccount(14);
const D1 = testAccount(21);
const D2 = testAccount(22);
const D3 = testAccount(23);
const STRANGER = testAccount(99);

const ACTIVE = 0;
const INACTIVE = 1;
const JAILED = 2;
const UNBONDING = 3;

const CONFIG: StakingConfig = {
  minSelfStake: 100n * STRA,
  maxValidators: 3n,
  epochLength: 10n,
  unbondingPeriod: 20n,
  maxCommissionChangePerEpoch: PCT,
  jailThreshold: 3n,
  jailCooldown: 5n,
  blockReward: STRA,
  uptimeWindow: 5n,
};

const GENESIS: GenesisValidator[] = [
  { validator: V1, commission: 10n * PCT, selfStake: 300n * STRA },
  { validator: V2, commission: 5n * PCT, selfStake: 200n * STRA },
  { validator: V3, commission: 0n, selfStake: 100n * STRA },
];

/** Genesis-style deployment at STAKING_ADDRESS in block 0; calls then run from block 1. */
async function setup(validators: GenesisValidator[] = GENESIS, config: StakingConfig = CONFIG) {
  const evm = await TestEvm.create();
  evm.setBlock(0n);
  await evm.deployAt(address, stakingCreationCode(config, validators));
  evm.mine();
  for (const a of [V1, V2, V3, V4, D1, D2, D3, STRANGER]) await evm.fund(a, 10_000n * STRA);
  return evm;
}

const recordSlot = (evm: TestEvm, proposer: `0x${string}`, missed: `0x${string}`[] = []) =>
  evm.systemCall({ address, abi, functionName: "recordSlot", args: [proposer, missed] });

const distribute = (evm: TestEvm, value: bigint) =>
  evm.systemCall({ address, abi, functionName: "distributeRewards", value });

const registerValidator = (evm: TestEvm, from: Address, commission: bigint, selfStake: bigint) =>
  evm.write({ address, abi, functionName: "registerValidator", args: [commission], from, value: selfStake });

const delegate = (evm: TestEvm, from: Address, validator: Address, value: bigint) =>
  evm.write({ address, abi, functionName: "delegate", args: [validator], from, value });

const undelegate = (evm: TestEvm, from: Address, validator: Address, amount: bigint) =>
  evm.write({ address, abi, functionName: "undelegate", args: [validator, amount], from });

const info = (evm: TestEvm, v: `0x${string}`) =>
  evm.read({ address, abi, functionName: "getValidator", args: [v] });

const active = async (evm: TestEvm) =>
  (await evm.read({ address, abi, functionName: "activeValidators" }))[0];

describe("Staking: genesis", () => {
  it("registers the genesis validators, holds their stake and selects the active set", async () => {
    const evm = await setup();
    expect(await evm.balance(address)).toBe(600n * STRA);
    expect(await evm.read({ address, abi, functionName: "totalStaked" })).toBe(600n * STRA);
    expect(await evm.read({ address, abi, functionName: "validatorCount" })).toBe(3n);
    expect(await evm.read({ address, abi, functionName: "activeValidators" })).toEqual([
      [V1, V2, V3],
      [300n * STRA, 200n * STRA, 100n * STRA],
    ]);
    const v1 = await info(evm, V1);
    expect(v1).toMatchObject({
      validator: V1,
      selfStake: 300n * STRA,
      delegatedStake: 0n,
      totalStake: 300n * STRA,
      commission: 10n * PCT,
      status: ACTIVE,
      jailed: false,
      registeredAt: 0n,
    });
    expect(await evm.read({ address, abi, functionName: "isActiveValidator", args: [V2] })).toBe(true);
    expect(await evm.read({ address, abi, functionName: "isActiveValidator", args: [STRANGER] })).toBe(false);
    expect(await evm.read({ address, abi, functionName: "isValidator", args: [V3] })).toBe(true);
    expect(await evm.read({ address, abi, functionName: "isValidator", args: [STRANGER] })).toBe(false);
    expect(await evm.read({ address, abi, functionName: "SYSTEM_ADDRESS" })).toBe(
      "0xffffFFFfFFffffffffffffffFfFFFfffFFFfFFfE",
    );
  });

  it("exposes the configuration", async () => {
    const evm = await setup();
    expect(await evm.read({ address, abi, functionName: "config" })).toEqual(CONFIG);
    expect(await evm.read({ address, abi, functionName: "minSelfStake" })).toBe(100n * STRA);
    expect(await evm.read({ address, abi, functionName: "maxValidators" })).toBe(3n);
    expect(await evm.read({ address, abi, functionName: "blockReward" })).toBe(STRA);
    evm.setBlock(25n);
    expect(await evm.read({ address, abi, functionName: "currentEpoch" })).toBe(2n);
    expect(await evm.read({ address, abi, functionName: "nextEpochBlock" })).toBe(30n);
  });

  it("rejects a genesis whose value does not match the stakes, and invalid configurations", async () => {
    const evm = await TestEvm.create();
    const creation = stakingCreationCode(CONFIG, GENESIS);
    await expect(
      evm.deployAt(address, { ...creation, value: creation.value - 1n }, SYSTEM_ADDRESS, abi),
    ).rejects.toMatchObject({
      errorName: "GenesisStakeMismatch",
      args: [creation.value, creation.value - 1n],
    });
    const cases: [Partial<StakingConfig>, string][] = [
      [{ maxValidators: 0n }, "maxValidators"],
      [{ epochLength: 0n }, "epochLength"],
      [{ jailThreshold: 0n }, "jailThreshold"],
      [{ uptimeWindow: 0n }, "uptimeWindow"],
      [{ maxCommissionChangePerEpoch: STRA + 1n }, "maxCommissionChangePerEpoch"],
    ];
    for (const [bad, field] of cases) {
      await expect(
        evm.deploy(stakingCreationCode({ ...CONFIG, ...bad }, []), undefined, abi),
      ).rejects.toMatchObject({ errorName: "InvalidConfig", args: [field] });
    }
    await expect(
      evm.deploy(
        stakingCreationCode(CONFIG, [{ validator: V1, commission: 0n, selfStake: 99n * STRA }]),
        undefined,
        abi,
      ),
    ).rejects.toMatchObject({ errorName: "StakeBelowMinimum", args: [99n * STRA, 100n * STRA] });
    await expect(
      evm.deploy(
        stakingCreationCode(CONFIG, [
          { validator: V1, commission: 0n, selfStake: 100n * STRA },
          { validator: V1, commission: 0n, selfStake: 100n * STRA },
        ]),
        undefined,
        abi,
      ),
    ).rejects.toMatchObject({ errorName: "AlreadyRegistered", args: [V1] });
  });

  it("ranks equal stakes by address", async () => {
    const evm = await setup([
      { validator: V3, commission: 0n, selfStake: 100n * STRA },
      { validator: V2, commission: 0n, selfStake: 100n * STRA },
      { validator: V1, commission: 0n, selfStake: 100n * STRA },
      { validator: V4, commission: 0n, selfStake: 100n * STRA },
    ]);
    expect(await active(evm)).toEqual([V1, V2, V3]);
    expect((await info(evm, V4)).status).toBe(INACTIVE);
  });
});

describe("Staking: validators and delegation", () => {
  it("registerValidator enforces the minimum self-stake, the commission bound and uniqueness", async () => {
    const evm = await setup();
    await expect(registerValidator(evm, V4, 0n, 99n * STRA)).rejects.toMatchObject({
      errorName: "StakeBelowMinimum",
      args: [99n * STRA, 100n * STRA],
    });
    await expect(registerValidator(evm, V4, STRA + 1n, 100n * STRA)).rejects.toMatchObject({
      errorName: "CommissionTooHigh",
      args: [STRA + 1n, STRA],
    });
    await expect(registerValidator(evm, V1, 0n, 100n * STRA)).rejects.toMatchObject({
      errorName: "AlreadyRegistered",
      args: [V1],
    });
    evm.setBlock(4n);
    const res = await registerValidator(evm, V4, 7n * PCT, 150n * STRA);
    expect(TestEvm.events(res, abi, "ValidatorRegistered")).toEqual([
      { validator: V4, selfStake: 150n * STRA, commission: 7n * PCT },
    ]);
    expect(await evm.read({ address, abi, functionName: "validatorCount" })).toBe(4n);
    expect(await info(evm, V4)).toMatchObject({ status: INACTIVE, registeredAt: 4n, selfStake: 150n * STRA });
    expect(await evm.read({ address, abi, functionName: "totalStaked" })).toBe(750n * STRA);
  });

  it("a new validator joins the active set at the epoch boundary when its stake ranks it there", async () => {
    const evm = await setup();
    await registerValidator(evm, V4, 0n, 150n * STRA);
    expect(await active(evm)).toEqual([V1, V2, V3]);
    const top = await evm.read({ address, abi, functionName: "topValidators", args: [3n] });
    expect(top.map((v) => v.validator)).toEqual([V1, V2, V4]);
    evm.setBlock(9n);
    const res = await distribute(evm, 0n);
    expect(TestEvm.events(res, abi, "ActiveSetUpdated")).toEqual([{ epoch: 1n, validators: [V1, V2, V4] }]);
    expect(await active(evm)).toEqual([V1, V2, V4]);
    expect((await info(evm, V3)).status).toBe(INACTIVE);
    expect((await info(evm, V4)).status).toBe(ACTIVE);
  });

  it("delegate checks the validator and the amount, and books the stake", async () => {
    const evm = await setup();
    await expect(delegate(evm, D1, STRANGER, STRA)).rejects.toMatchObject({
      errorName: "UnknownValidator",
      args: [STRANGER],
    });
    await expect(delegate(evm, D1, V1, 0n)).rejects.toMatchObject({ errorName: "ZeroAmount" });
    const res = await delegate(evm, D1, V1, 40n * STRA);
    expect(TestEvm.events(res, abi, "Delegated")).toEqual([
      { delegator: D1, validator: V1, amount: 40n * STRA },
    ]);
    await delegate(evm, D1, V2, 10n * STRA);
    await delegate(evm, D1, V1, 2n * STRA);
    expect(await evm.read({ address, abi, functionName: "getDelegations", args: [D1] })).toEqual([
      { validator: V1, amount: 42n * STRA, pendingRewards: 0n },
      { validator: V2, amount: 10n * STRA, pendingRewards: 0n },
    ]);
    expect(await evm.read({ address, abi, functionName: "getDelegation", args: [D1, V1] })).toBe(42n * STRA);
    expect(await info(evm, V1)).toMatchObject({ delegatedStake: 42n * STRA, totalStake: 342n * STRA });
    expect(await evm.read({ address, abi, functionName: "totalStaked" })).toBe(652n * STRA);
    expect(await evm.balance(address)).toBe(652n * STRA);
  });

  it("a validator delegating to itself adds self-stake", async () => {
    const evm = await setup();
    await delegate(evm, V3, V3, 5n * STRA);
    expect(await info(evm, V3)).toMatchObject({ selfStake: 105n * STRA, delegatedStake: 0n });
    expect(await evm.read({ address, abi, functionName: "getDelegations", args: [V3] })).toEqual([]);
  });

  it("undelegate checks amount and validator, and queues the amount for unbondingPeriod blocks", async () => {
    const evm = await setup();
    await delegate(evm, D1, V1, 100n * STRA);
    await expect(undelegate(evm, D1, V1, 100n * STRA + 1n)).rejects.toMatchObject({
      errorName: "InsufficientStake",
      args: [100n * STRA, 100n * STRA + 1n],
    });
    await expect(undelegate(evm, D1, V2, 1n)).rejects.toMatchObject({
      errorName: "InsufficientStake",
      args: [0n, 1n],
    });
    await expect(undelegate(evm, D1, V1, 0n)).rejects.toMatchObject({ errorName: "ZeroAmount" });
    await expect(undelegate(evm, D1, STRANGER, 1n)).rejects.toMatchObject({
      errorName: "UnknownValidator",
      args: [STRANGER],
    });

    evm.setBlock(3n);
    const res = await undelegate(evm, D1, V1, 30n * STRA);
    expect(TestEvm.events(res, abi, "Undelegated")).toEqual([
      { delegator: D1, validator: V1, amount: 30n * STRA, completionBlock: 23n },
    ]);
    expect(await evm.read({ address, abi, functionName: "totalStaked" })).toBe(670n * STRA);
    expect(await evm.read({ address, abi, functionName: "totalUnbonding" })).toBe(30n * STRA);
    expect((await info(evm, V1)).delegatedStake).toBe(70n * STRA);
    expect(await evm.read({ address, abi, functionName: "getUnbonding", args: [D1] })).toEqual([
      { validator: V1, amount: 30n * STRA, completionBlock: 23n },
    ]);
    evm.setBlock(5n);
    await undelegate(evm, D1, V1, 70n * STRA);
    expect(await evm.read({ address, abi, functionName: "getDelegations", args: [D1] })).toEqual([]);
    expect(await evm.read({ address, abi, functionName: "getUnbonding", args: [D1] })).toEqual([
      { validator: V1, amount: 30n * STRA, completionBlock: 23n },
      { validator: V1, amount: 70n * STRA, completionBlock: 25n },
    ]);
  });

  it("withdraw pays matured entries only", async () => {
    const evm = await setup();
    await delegate(evm, D1, V1, 100n * STRA);
    const withdraw = (from: `0x${string}`) => evm.write({ address, abi, functionName: "withdraw", from });
    await expect(withdraw(D1)).rejects.toMatchObject({ errorName: "NothingToWithdraw" });

    evm.setBlock(3n);
    await undelegate(evm, D1, V1, 30n * STRA);
    evm.setBlock(5n);
    await undelegate(evm, D1, V1, 20n * STRA);
    evm.setBlock(22n);
    await expect(withdraw(D1)).rejects.toMatchObject({ errorName: "UnbondingNotComplete", args: [23n] });

    evm.setBlock(23n);
    const before = await evm.balance(D1);
    const res = await withdraw(D1);
    expect(TestEvm.events(res, abi, "Withdrawn")).toEqual([{ account: D1, amount: 30n * STRA }]);
    expect(await evm.balance(D1)).toBe(before + 30n * STRA);
    expect(await evm.read({ address, abi, functionName: "getUnbonding", args: [D1] })).toEqual([
      { validator: V1, amount: 20n * STRA, completionBlock: 25n },
    ]);
    await expect(withdraw(D1)).rejects.toMatchObject({ errorName: "UnbondingNotComplete", args: [25n] });
    evm.setBlock(40n);
    await withdraw(D1);
    expect(await evm.read({ address, abi, functionName: "getUnbonding", args: [D1] })).toEqual([]);
    expect(await evm.read({ address, abi, functionName: "totalUnbonding" })).toBe(0n);
    expect(await evm.balance(address)).toBe(650n * STRA);
    await expect(withdraw(D1)).rejects.toMatchObject({ errorName: "NothingToWithdraw" });
  });

  it("caps the number of pending unbonding entries", async () => {
    const evm = await setup();
    await delegate(evm, D1, V1, 100n * STRA);
    const max = await evm.read({ address, abi, functionName: "MAX_UNBONDING_ENTRIES" });
    for (let i = 0n; i < max; i++) {
      await undelegate(evm, D1, V1, 1n);
    }
    await expect(undelegate(evm, D1, V1, 1n)).rejects.toMatchObject({
      errorName: "TooManyUnbondingEntries",
      args: [max],
    });
  });

  it("a validator may lower its self-stake to the minimum or exit entirely", async () => {
    const evm = await setup();
    await delegate(evm, D1, V1, 10n * STRA);
    await expect(undelegate(evm, V1, V1, 250n * STRA)).rejects.toMatchObject({
      errorName: "StakeBelowMinimum",
      args: [50n * STRA, 100n * STRA],
    });
    await expect(undelegate(evm, V1, V1, 301n * STRA)).rejects.toMatchObject({
      errorName: "InsufficientStake",
      args: [300n * STRA, 301n * STRA],
    });
    await undelegate(evm, V1, V1, 100n * STRA);
    expect((await info(evm, V1)).selfStake).toBe(200n * STRA);

    evm.setBlock(4n);
    const res = await undelegate(evm, V1, V1, 200n * STRA);
    expect(TestEvm.events(res, abi, "ValidatorExited")).toEqual([{ validator: V1, unbondingUntil: 24n }]);
    expect(await active(evm)).toEqual([V2, V3]);
    expect(await info(evm, V1)).toMatchObject({ status: UNBONDING, selfStake: 0n, unbondingUntil: 24n });
    await expect(delegate(evm, D2, V1, STRA)).rejects.toMatchObject({
      errorName: "ValidatorNotBonded",
      args: [V1],
    });
    // delegators of an exited validator can still leave
    await undelegate(evm, D1, V1, 10n * STRA);

    evm.setBlock(24n);
    expect((await info(evm, V1)).status).toBe(INACTIVE);
    // re-registering cannot jump the commission beyond the per-epoch bound
    await expect(registerValidator(evm, V1, 50n * PCT, 120n * STRA)).rejects.toMatchObject({
      errorName: "CommissionChangeTooLarge",
      args: [10n * PCT, 50n * PCT, PCT],
    });
    await registerValidator(evm, V1, 9n * PCT, 120n * STRA);
    expect(await info(evm, V1)).toMatchObject({
      selfStake: 120n * STRA,
      commission: 9n * PCT,
      registeredAt: 0n,
    });
    expect(await evm.read({ address, abi, functionName: "validatorCount" })).toBe(3n);
  });

  it("setCommission bounds the change within an epoch", async () => {
    const evm = await setup();
    const set = (from: `0x${string}`, c: bigint) =>
      evm.write({ address, abi, functionName: "setCommission", args: [c], from });
    await expect(set(STRANGER, PCT)).rejects.toMatchObject({
      errorName: "UnknownValidator",
      args: [STRANGER],
    });
    await expect(set(V1, STRA + 1n)).rejects.toMatchObject({ errorName: "CommissionTooHigh" });
    await expect(set(V1, 12n * PCT)).rejects.toMatchObject({
      errorName: "CommissionChangeTooLarge",
      args: [10n * PCT, 12n * PCT, PCT],
    });
    const res = await set(V1, 11n * PCT);
    expect(TestEvm.events(res, abi, "CommissionChanged")).toEqual([
      { validator: V1, oldCommission: 10n * PCT, newCommission: 11n * PCT },
    ]);
    // the bound is relative to the commission at the start of the epoch, not to the last change
    await expect(set(V1, 11n * PCT + PCT / 2n)).rejects.toMatchObject({
      errorName: "CommissionChangeTooLarge",
      args: [10n * PCT, 11n * PCT + PCT / 2n, PCT],
    });
    await set(V1, 9n * PCT);
    evm.setBlock(10n);
    await set(V1, 10n * PCT);
    expect((await info(evm, V1)).commission).toBe(10n * PCT);
    await set(V1, 8n * PCT);
    await expect(set(V1, 7n * PCT + PCT / 2n)).rejects.toMatchObject({
      errorName: "CommissionChangeTooLarge",
      args: [9n * PCT, 7n * PCT + PCT / 2n, PCT],
    });
  });
});

describe("Staking: slots, jailing and uptime", () => {
  it("only the system address may record slots and distribute rewards", async () => {
    const evm = await setup();
    await expect(
      evm.write({ address, abi, functionName: "recordSlot", args: [V1, []], from: V1 }),
    ).rejects.toMatchObject({ errorName: "NotSystem", args: [V1] });
    await evm.fund(V1, STRA);
    await expect(
      evm.write({ address, abi, functionName: "distributeRewards", from: V1, value: STRA }),
    ).rejects.toMatchObject({ errorName: "NotSystem", args: [V1] });
  });

  it("counts proposals and misses, once per block", async () => {
    const evm = await setup();
    const res = await recordSlot(evm, V1, [V2]);
    expect(TestEvm.events(res, abi, "SlotRecorded")).toEqual([
      { blockNumber: 1n, proposer: V1, missed: [V2] },
    ]);
    await expect(recordSlot(evm, V1)).rejects.toMatchObject({ errorName: "SlotAlreadyRecorded", args: [1n] });
    evm.mine();
    await recordSlot(evm, V2);
    expect(await info(evm, V1)).toMatchObject({ blocksProposed: 1n, blocksMissed: 0n });
    expect(await info(evm, V2)).toMatchObject({ blocksProposed: 1n, blocksMissed: 1n, missedInRow: 0n });
    expect(await evm.read({ address, abi, functionName: "slotCount" })).toBe(2n);
  });

  it("jails after jailThreshold consecutive misses: out of the rotation, still a voter; unjail only after the cooldown", async () => {
    const evm = await setup();
    for (let b = 1n; b <= 2n; b++) {
      evm.setBlock(b);
      await recordSlot(evm, V1, [V2]);
    }
    expect(await info(evm, V2)).toMatchObject({ missedInRow: 2n, jailed: false, status: ACTIVE });
    evm.setBlock(3n);
    const res = await recordSlot(evm, V1, [V2]);
    expect(TestEvm.events(res, abi, "ValidatorJailed")).toEqual([
      { validator: V2, jailedUntil: 8n, missedInRow: 3n },
    ]);
    expect(await info(evm, V2)).toMatchObject({
      status: JAILED,
      jailed: true,
      jailedUntil: 8n,
      blocksMissed: 3n,
    });
    // It proposes no more, but keeps its place in the validator set (the finality voters).
    expect(await active(evm)).toEqual([V1, V3]);
    expect(await evm.read({ address, abi, functionName: "activeValidatorCount" })).toBe(2n);
    expect(await evm.read({ address, abi, functionName: "isActiveValidator", args: [V2] })).toBe(false);
    expect(await evm.read({ address, abi, functionName: "validatorSet" })).toEqual([
      [V1, V2, V3],
      [300n * STRA, 200n * STRA, 100n * STRA],
      [false, true, false],
    ]);
    // An epoch boundary keeps it in the set, and its share of the rewards goes to the others.
    evm.setBlock(4n);
    await distribute(evm, 4n * STRA);
    expect((await evm.read({ address, abi, functionName: "validatorSet" }))[0]).toEqual([V1, V2, V3]);
    expect(await evm.read({ address, abi, functionName: "pendingRewards", args: [V2] })).toBe(0n);
    expect(await evm.read({ address, abi, functionName: "pendingRewards", args: [V1] })).toBe(3n * STRA);

    const unjail = (from: `0x${string}`) => evm.write({ address, abi, functionName: "unjail", from });
    evm.setBlock(7n);
    await expect(unjail(V2)).rejects.toMatchObject({ errorName: "JailCooldownActive", args: [8n] });
    await expect(unjail(V1)).rejects.toMatchObject({ errorName: "NotJailed", args: [V1] });
    await expect(unjail(STRANGER)).rejects.toMatchObject({ errorName: "UnknownValidator", args: [STRANGER] });
    evm.setBlock(8n);
    const u = await unjail(V2);
    expect(TestEvm.events(u, abi, "ValidatorUnjailed")).toEqual([{ validator: V2 }]);
    // Back in the rotation at once: it never left the set.
    expect(await info(evm, V2)).toMatchObject({ status: ACTIVE, jailed: false, missedInRow: 0n });
    expect(await active(evm)).toEqual([V1, V2, V3]);
  });

  it("a validator jailed for missed slots that is no longer ranked leaves the set at the epoch boundary", async () => {
    const evm = await setup();
    for (let b = 1n; b <= 3n; b++) {
      evm.setBlock(b);
      await recordSlot(evm, V1, [V3]);
    }
    expect(await info(evm, V3)).toMatchObject({ jailed: true });
    await registerValidator(evm, V4, 0n, 150n * STRA);
    evm.setBlock(9n);
    await distribute(evm, 0n);
    expect((await evm.read({ address, abi, functionName: "validatorSet" }))[0]).toEqual([V1, V2, V4]);
  });

  it("a proposal resets the consecutive-miss counter", async () => {
    const evm = await setup();
    const pattern: [`0x${string}`, `0x${string}`[]][] = [
      [V1, [V2]],
      [V1, [V2]],
      [V2, []],
      [V1, [V2]],
      [V1, [V2]],
    ];
    for (const [p, m] of pattern) {
      await recordSlot(evm, p, m);
      evm.mine();
    }
    expect(await info(evm, V2)).toMatchObject({ jailed: false, missedInRow: 2n, blocksMissed: 4n });
  });

  it("never jails the last active validator", async () => {
    const evm = await setup([{ validator: V1, commission: 0n, selfStake: 100n * STRA }]);
    for (let i = 0; i < 5; i++) {
      await recordSlot(evm, STRANGER, [V1]);
      evm.mine();
    }
    expect(await info(evm, V1)).toMatchObject({ jailed: false, missedInRow: 5n, status: ACTIVE });
  });

  it("never jails the last unjailed member of the set: somebody must propose", async () => {
    const evm = await setup();
    for (let i = 0; i < 3; i++) {
      await recordSlot(evm, V1, [V2, V3]);
      evm.mine();
    }
    for (let i = 0; i < 5; i++) {
      await recordSlot(evm, STRANGER, [V1]);
      evm.mine();
    }
    expect(await info(evm, V1)).toMatchObject({ jailed: false, missedInRow: 5n, status: ACTIVE });
    expect(await active(evm)).toEqual([V1]);
  });

  it("keeps uptime counters over the last uptimeWindow slots and ignores unknown addresses", async () => {
    const evm = await setup();
    // 7 slots, window 5: slots 3..7 count
    const slots: [`0x${string}`, `0x${string}`[]][] = [
      [V1, [V2]], // 1 (evicted)
      [V1, []], // 2 (evicted)
      [V2, []], // 3
      [V1, [V2, STRANGER]], // 4
      [STRANGER, [V3]], // 5
      [V3, []], // 6
      [V1, []], // 7
    ];
    for (const [p, m] of slots) {
      await recordSlot(evm, p, m);
      evm.mine();
    }
    expect(await evm.read({ address, abi, functionName: "uptime", args: [V1] })).toEqual([2n, 2n]);
    expect(await evm.read({ address, abi, functionName: "uptime", args: [V2] })).toEqual([1n, 2n]);
    expect(await evm.read({ address, abi, functionName: "uptime", args: [V3] })).toEqual([1n, 2n]);
    expect(await info(evm, V1)).toMatchObject({ blocksProposed: 4n, windowProposed: 2n, windowMissed: 0n });
    expect(await info(evm, V2)).toMatchObject({ blocksMissed: 2n, windowMissed: 1n });
    const zero = "0x0000000000000000000000000000000000000000";
    expect(await evm.read({ address, abi, functionName: "recentSlots", args: [100n] })).toEqual([
      { blockNumber: 3n, proposer: V2, missed: [] },
      { blockNumber: 4n, proposer: V1, missed: [V2] },
      { blockNumber: 5n, proposer: zero, missed: [V3] },
      { blockNumber: 6n, proposer: V3, missed: [] },
      { blockNumber: 7n, proposer: V1, missed: [] },
    ]);
    expect(await evm.read({ address, abi, functionName: "recentSlots", args: [2n] })).toEqual([
      { blockNumber: 6n, proposer: V3, missed: [] },
      { blockNumber: 7n, proposer: V1, missed: [] },
    ]);
    expect(await evm.read({ address, abi, functionName: "uptime", args: [STRANGER] })).toEqual([0n, 0n]);
  });
});

const SCALE = 10n ** 36n; // Staking.REWARD_PRECISION

/** Sum over accounts of pending rewards in 1e-36 wei units, plus the validators' pool carries. */
async function creditedScaled(evm: TestEvm, accounts: `0x${string}`[], validators: `0x${string}`[]) {
  let total = 0n;
  for (const a of accounts) {
    const [amount, fraction] = await evm.read({
      address,
      abi,
      functionName: "pendingRewardsPrecise",
      args: [a],
    });
    total += amount * SCALE + fraction;
  }
  for (const v of validators)
    total += await evm.read({ address, abi, functionName: "rewardCarry", args: [v] });
  return total;
}

function rewardedSum(res: CallResult<unknown>): bigint {
  return TestEvm.events(res, abi, "ValidatorRewarded").reduce(
    (s, e) => s + e.validatorAmount + e.delegatorsAmount,
    0n,
  );
}

describe("Staking: rewards", () => {
  it("splits by stake, applies commission, and credits exactly msg.value", async () => {
    const evm = await setup();
    await delegate(evm, D1, V1, 100n * STRA);
    await delegate(evm, D2, V1, 50n * STRA + 7n);
    await delegate(evm, D2, V2, 33n * STRA + 1n);
    evm.setBlock(9n);
    const value = 10n ** 18n + 12_345n;
    const res = await distribute(evm, value);

    expect(TestEvm.events(res, abi, "RewardsDistributed")).toEqual([
      { epoch: 0n, amount: value, validatorCount: 3n },
    ]);
    expect(rewardedSum(res)).toBe(value);
    const accounts = [V1, V2, V3, D1, D2];
    expect(await creditedScaled(evm, accounts, [V1, V2, V3])).toBe(value * SCALE);
    expect(await evm.read({ address, abi, functionName: "totalRewardsDistributed" })).toBe(value);

    // V3 has no delegators: it gets exactly its stake share (stake-weighted, floored)
    const total = 600n * STRA + 150n * STRA + 7n + 33n * STRA + 1n;
    const v3Share = (value * 100n * STRA) / total;
    expect(await evm.read({ address, abi, functionName: "pendingRewards", args: [V3] })).toBe(v3Share);

    // V2: commission 5 % of the delegators' part
    const v2Stake = 233n * STRA + 1n;
    const v2Share = (value * v2Stake) / total;
    const v2Gross = (v2Share * (33n * STRA + 1n)) / v2Stake;
    const v2Delegators = v2Gross - (v2Gross * 5n * PCT) / STRA;
    const v2Event = TestEvm.events(res, abi, "ValidatorRewarded").find((e) => e.validator === V2);
    expect(v2Event).toEqual({
      epoch: 0n,
      validator: V2,
      validatorAmount: v2Share - v2Delegators,
      delegatorsAmount: v2Delegators,
    });

    // the first validator (highest stake) receives the rounding remainder of the stake split
    const v1Event = TestEvm.events(res, abi, "ValidatorRewarded").find((e) => e.validator === V1);
    expect(v1Event!.validatorAmount + v1Event!.delegatorsAmount).toBe(value - v2Share - v3Share);

    // delegators of V1 share pro rata to their amounts
    const [d1] = await evm.read({ address, abi, functionName: "getDelegations", args: [D1] });
    const d2 = await evm.read({ address, abi, functionName: "getDelegations", args: [D2] });
    const d2v1 = d2.find((d) => d.validator === V1)!;
    expect(d1!.pendingRewards - 2n * d2v1.pendingRewards).toBeGreaterThanOrEqual(-2n);
    expect(d1!.pendingRewards - 2n * d2v1.pendingRewards).toBeLessThanOrEqual(2n);
  });

  it("stays exact over many distributions with changing stakes, and claims pay what is pending", async () => {
    const evm = await setup();
    const accounts = [V1, V2, V3, V4, D1, D2, D3];
    const validators = [V1, V2, V3, V4];
    let distributed = 0n;
    const values = [999_999_999_999_999_989n, 7n, 3n * STRA + 1n, 123_456_789n, 0n, 10n ** 20n + 17n];
    for (let e = 0; e < values.length; e++) {
      const base = BigInt(e) * 10n;
      evm.setBlock(base + 1n);
      await delegate(evm, D1, V1, 3n * STRA + BigInt(e));
      await delegate(evm, D2, V2, 2n * STRA + 1n + BigInt(e));
      if (e === 1) {
        await registerValidator(evm, V4, PCT, 500n * STRA);
        await delegate(evm, D3, V4, 11n * STRA + 3n);
      }
      if (e === 3) {
        await undelegate(evm, D1, V1, STRA);
        await evm.write({ address, abi, functionName: "claimRewards", args: [V2], from: D2 });
      }
      evm.setBlock(base + 9n);
      const res = await distribute(evm, values[e]!);
      expect(rewardedSum(res)).toBe(values[e]);
      distributed += values[e]!;
      const claimed = await evm.read({ address, abi, functionName: "totalRewardsClaimed" });
      expect((await creditedScaled(evm, accounts, validators)) + claimed * SCALE).toBe(distributed * SCALE);
    }

    // everyone claims: the contract pays exactly the pending amounts
    for (const a of accounts) {
      const pending = await evm.read({ address, abi, functionName: "pendingRewards", args: [a] });
      expect(pending).toBeGreaterThan(0n);
      const before = await evm.balance(a);
      const res = await evm.write({ address, abi, functionName: "claimRewards", from: a });
      expect(TestEvm.events(res, abi, "RewardsClaimed")).toEqual([{ account: a, amount: pending }]);
      expect(await evm.balance(a)).toBe(before + pending);
      expect(await evm.read({ address, abi, functionName: "pendingRewards", args: [a] })).toBe(0n);
    }
    const claimed = await evm.read({ address, abi, functionName: "totalRewardsClaimed" });
    // what is left unpaid is sub-wei fractions only (below one wei per account and per pool)
    expect(distributed - claimed).toBeGreaterThanOrEqual(0n);
    expect(distributed - claimed).toBeLessThan(BigInt(accounts.length + validators.length));
    const staked = await evm.read({ address, abi, functionName: "totalStaked" });
    const unbonding = await evm.read({ address, abi, functionName: "totalUnbonding" });
    expect(await evm.balance(address)).toBe(staked + unbonding + distributed - claimed);
  });

  it("claimRewards reverts with NoRewards when nothing is pending", async () => {
    const evm = await setup();
    await expect(evm.write({ address, abi, functionName: "claimRewards", from: D1 })).rejects.toMatchObject({
      errorName: "NoRewards",
    });
    await expect(
      evm.write({ address, abi, functionName: "claimRewards", args: [V1], from: D1 }),
    ).rejects.toMatchObject({ errorName: "NoRewards" });
  });

  it("a delegation made after a distribution earns nothing from it", async () => {
    const evm = await setup();
    evm.setBlock(9n);
    await distribute(evm, STRA);
    evm.setBlock(10n);
    await delegate(evm, D1, V1, 100n * STRA);
    expect(await evm.read({ address, abi, functionName: "pendingRewards", args: [D1] })).toBe(0n);
  });

  it("distributes once per epoch", async () => {
    const evm = await setup();
    evm.setBlock(9n);
    await distribute(evm, 1n);
    await expect(distribute(evm, 1n)).rejects.toMatchObject({
      errorName: "EpochAlreadyDistributed",
      args: [0n],
    });
    evm.setBlock(15n);
    await distribute(evm, 1n);
    evm.setBlock(19n);
    await expect(distribute(evm, 1n)).rejects.toMatchObject({
      errorName: "EpochAlreadyDistributed",
      args: [1n],
    });
  });

  it("defers rewards while no stake is active", async () => {
    const evm = await setup([]);
    evm.setBlock(2n);
    await registerValidator(evm, V1, 0n, 100n * STRA);
    evm.setBlock(9n);
    const res = await distribute(evm, 5n);
    expect(TestEvm.events(res, abi, "RewardsDeferred")).toEqual([{ epoch: 0n, amount: 5n }]);
    expect(await evm.read({ address, abi, functionName: "undistributedRewards" })).toBe(5n);
    expect(await active(evm)).toEqual([V1]);
    evm.setBlock(19n);
    const res2 = await distribute(evm, 7n);
    expect(TestEvm.events(res2, abi, "RewardsDistributed")).toEqual([
      { epoch: 1n, amount: 12n, validatorCount: 1n },
    ]);
    expect(await evm.read({ address, abi, functionName: "pendingRewards", args: [V1] })).toBe(12n);
    expect(await evm.read({ address, abi, functionName: "undistributedRewards" })).toBe(0n);
  });
});

describe("Staking: views", () => {
  it("getValidators lists every validator with its status", async () => {
    const evm = await setup();
    await registerValidator(evm, V4, 0n, 100n * STRA);
    await undelegate(evm, V3, V3, 100n * STRA);
    const list = await evm.read({ address, abi, functionName: "getValidators" });
    expect(list.map((v) => [v.validator, v.status])).toEqual([
      [V1, ACTIVE],
      [V2, ACTIVE],
      [V3, UNBONDING],
      [V4, INACTIVE],
    ]);
    await expect(info(evm, STRANGER)).rejects.toMatchObject({
      errorName: "UnknownValidator",
      args: [STRANGER],
    });
    expect(await evm.read({ address, abi, functionName: "activeValidatorCount" })).toBe(2n);
    const top = await evm.read({ address, abi, functionName: "topValidators", args: [10n] });
    expect(top.map((v) => v.validator)).toEqual([V1, V2, V4]);
  });
});

/** Runtime code that reverts on every call (PUSH0 PUSH0 REVERT): a recipient refusing payments. */
const REJECTING: Hex = "0x5f5ffd";

/** Runtime code that, whenever called, calls `signature` on `target` and ignores the outcome. */
function reentrant(target: Address, signature: string): Hex {
  // PUSH4 selector, PUSH0, MSTORE; CALL(gas, target, 0, 28, 4, 0, 0); POP; STOP
  return concat([
    "0x63",
    toFunctionSelector(signature),
    "0x5f52",
    "0x5f5f6004601c5f73",
    target,
    "0x5af15000",
  ]);
}

describe("Staking: payments and limits", () => {
  it("reverts with TransferFailed when the recipient refuses the payment", async () => {
    const evm = await setup();
    const R = testAccount(77);
    await evm.setCode(R, REJECTING);
    await evm.fund(R, 100n * STRA);
    await delegate(evm, R, V1, 10n * STRA);
    await undelegate(evm, R, V1, 10n * STRA);
    evm.setBlock(30n);
    await expect(evm.write({ address, abi, functionName: "withdraw", from: R })).rejects.toMatchObject({
      errorName: "TransferFailed",
      args: [R, 10n * STRA],
    });
    expect(await evm.read({ address, abi, functionName: "getUnbonding", args: [R] })).toHaveLength(1);
  });

  it("refuses a nested call made while it pays out", async () => {
    const evm = await setup();
    const A = testAccount(78);
    await evm.setCode(A, reentrant(address, "claimRewards()"));
    await evm.fund(A, 200n * STRA);
    await delegate(evm, A, V1, 100n * STRA);
    evm.setBlock(9n);
    await distribute(evm, 10n * STRA);
    const pending = await evm.read({ address, abi, functionName: "pendingRewards", args: [A] });
    expect(pending).toBeGreaterThan(0n);
    evm.setBlock(10n);
    await undelegate(evm, A, V1, 10n * STRA);
    evm.setBlock(30n);
    const before = await evm.balance(A);
    await evm.write({ address, abi, functionName: "withdraw", from: A });
    // the nested claimRewards() during the payment was refused: only the unbonded amount arrived
    expect(await evm.balance(A)).toBe(before + 10n * STRA);
    expect(await evm.read({ address, abi, functionName: "pendingRewards", args: [A] })).toBe(pending);
    await evm.write({ address, abi, functionName: "claimRewards", from: A });
    expect(await evm.balance(A)).toBe(before + 10n * STRA + pending);
  });

  it("caps the number of bonded validators at MAX_CANDIDATES", async () => {
    const evm = await setup();
    const max = await evm.read({ address, abi, functionName: "MAX_CANDIDATES" });
    for (let i = 3n; i < max; i++) {
      const v = testAccount(5000 + Number(i));
      await evm.fund(v, 100n * STRA);
      await registerValidator(evm, v, 0n, 100n * STRA);
    }
    await expect(registerValidator(evm, V4, 0n, 100n * STRA)).rejects.toMatchObject({
      errorName: "TooManyValidators",
      args: [max],
    });
    // an exit frees a place
    await undelegate(evm, V3, V3, 100n * STRA);
    await registerValidator(evm, V4, 0n, 100n * STRA);
  });
});

describe("Staking: gas with 21 validators", () => {
  it("measures recordSlot and distributeRewards", async () => {
    const validators: GenesisValidator[] = Array.from({ length: 21 }, (_, i) => ({
      validator: testAccount(1000 + i),
      commission: BigInt(i) * PCT,
      selfStake: (1_000n + BigInt(i)) * STRA,
    }));
    const config: StakingConfig = { ...CONFIG, maxValidators: 21n, epochLength: 100n, uptimeWindow: 40n };
    const evm = await setup(validators, config);
    // two delegators per validator
    for (const [i, v] of validators.entries()) {
      for (const d of [testAccount(2000 + 2 * i), testAccount(2001 + 2 * i)]) {
        await evm.fund(d, 100n * STRA);
        await delegate(evm, d, v.validator, 10n * STRA);
      }
    }
    const gas: Record<string, bigint> = {};
    const proposer = (b: bigint) => validators[Number(b % 21n)]!.validator;

    // first pass over the ring: new storage slots
    evm.setBlock(1n);
    gas.recordSlotFirstPass = (await recordSlot(evm, proposer(1n))).gasUsed;
    for (let b = 2n; b <= 60n; b++) {
      evm.setBlock(b);
      await recordSlot(evm, proposer(b));
    }
    // steady state: the ring is full, each call evicts the oldest slot
    evm.setBlock(61n);
    gas.recordSlotSteady = (await recordSlot(evm, proposer(61n))).gasUsed;
    evm.setBlock(62n);
    gas.recordSlotOneMissed = (await recordSlot(evm, proposer(62n), [proposer(61n)])).gasUsed;

    evm.setBlock(99n);
    gas.distributeRewardsFirst = (await distribute(evm, 100n * STRA + 7n)).gasUsed;
    evm.setBlock(199n);
    const res = await distribute(evm, 100n * STRA + 13n);
    gas.distributeRewardsSteady = res.gasUsed;
    expect(rewardedSum(res)).toBe(100n * STRA + 13n);
    evm.setBlock(299n);
    gas.distributeRewardsZeroValue = (await distribute(evm, 0n)).gasUsed;

    console.info("Staking gas (execution, 21 validators):", gas);
    expect(gas.recordSlotSteady).toBeLessThan(100_000n);
    expect(gas.distributeRewardsSteady).toBeLessThan(2_000_000n);
  });
});

describe("Staking: double-sign slashing", () => {
  const KEY = `0x${"5a".repeat(32)}` as Hex;
  const OTHER_KEY = `0x${"6b".repeat(32)}` as Hex;
  const SIGNER = privateKeyToAccount(KEY).address;
  const CHAIN_ID = 1337n;

  /** An RLP header (the fields a Prague header has) at `number` on `parent`; `salt` makes two differ. */
  const header = (number: bigint, salt: number, parent = keccak256(toHex(number - 1n))): Hex =>
    toRlp([
      parent,
      keccak256("0x"),
      SIGNER,
      keccak256(toHex(salt + 1)),
      keccak256("0x01"),
      keccak256("0x02"),
      `0x${"00".repeat(256)}`,
      "0x",
      number === 0n ? "0x" : toHex(number),
      toHex(30_000_000n),
      "0x",
      toHex(1_700_000_000n + number),
      `0x${"00".repeat(32)}`,
      `0x${"00".repeat(32)}`,
      "0x0000000000000000",
      toHex(7n),
    ]);
  const seal = async (rlp: Hex, key: Hex = KEY) =>
    serializeSignature(await sign({ hash: keccak256(rlp), privateKey: key }));
  const vote = async (number: bigint, hash: Hex, key: Hex = KEY, chainId = CHAIN_ID) =>
    serializeSignature(
      await sign({
        hash: keccak256(
          encodeAbiParameters(parseAbiParameters("bytes32, uint256, uint256, bytes32"), [
            keccak256(toHex("StrataFinalityVote(uint256 chainId,uint256 number,bytes32 hash)")),
            chainId,
            number,
            hash,
          ]),
        ),
        privateKey: key,
      }),
    );

  /** SIGNER registered with 1,000 STRA, D1 delegating 400 and D2 100, in the active set from block 10. */
  async function withSigner() {
    const evm = await setup();
    await evm.fund(SIGNER, 10_000n * STRA);
    await registerValidator(evm, SIGNER, 0n, 1000n * STRA);
    await delegate(evm, D1, SIGNER, 400n * STRA);
    await delegate(evm, D2, SIGNER, 100n * STRA);
    evm.setBlock(9n);
    await distribute(evm, 10n * STRA);
    evm.setBlock(12n);
    expect(await active(evm)).toContain(SIGNER);
    return evm;
  }

  it("two sealed headers at one height: anyone submits them, the sealer is jailed for good and 10 % of its stake and its delegators' is slashed", async () => {
    const evm = await withSigner();
    const before = await evm.read({ address, abi, functionName: "totalStaked" });
    const pendingBefore = await evm.read({ address, abi, functionName: "pendingRewards", args: [D1] });
    const [a, b] = [header(11n, 1), header(11n, 2)];
    const res = await evm.write({
      address,
      abi,
      functionName: "slashDoubleSeal",
      args: [a, await seal(a), b, await seal(b)],
      from: STRANGER,
    });
    expect(TestEvm.events(res, abi, "ValidatorSlashed")).toEqual([
      { validator: SIGNER, blockNumber: 11n, kind: 0, amount: 150n * STRA, reporter: STRANGER },
    ]);
    const slashed = await info(evm, SIGNER);
    expect(slashed.status).toBe(JAILED);
    expect(slashed.selfStake).toBe(900n * STRA);
    expect(slashed.delegatedStake).toBe(450n * STRA);
    expect(slashed.jailedUntil).toBe(2n ** 64n - 1n);
    expect(await active(evm)).not.toContain(SIGNER);
    expect(await evm.read({ address, abi, functionName: "getDelegation", args: [D1, SIGNER] })).toBe(
      360n * STRA,
    );
    expect(await evm.read({ address, abi, functionName: "getDelegation", args: [D2, SIGNER] })).toBe(
      90n * STRA,
    );
    expect(await evm.read({ address, abi, functionName: "totalStaked" })).toBe(before - 150n * STRA);
    expect(await evm.read({ address, abi, functionName: "totalSlashed" })).toBe(150n * STRA);
    // Rewards earned before the offence are kept.
    expect(await evm.read({ address, abi, functionName: "pendingRewards", args: [D1] })).toBe(pendingBefore);
    expect(await evm.read({ address, abi, functionName: "isOffenceSlashed", args: [SIGNER, 11n] })).toBe(
      true,
    );
    // One offence is slashed once, whichever evidence shows it.
    await expect(
      evm.write({
        address,
        abi,
        functionName: "slashDoubleSeal",
        args: [a, await seal(a), b, await seal(b)],
        from: D1,
      }),
    ).rejects.toMatchObject({ errorName: "OffenceAlreadySlashed", args: [SIGNER, 11n] });
    evm.setBlock(10_000n);
    await expect(evm.write({ address, abi, functionName: "unjail", from: SIGNER })).rejects.toMatchObject({
      errorName: "JailCooldownActive",
    });
    // The slashed validator and its delegators can still leave with what is left.
    await undelegate(evm, SIGNER, SIGNER, 900n * STRA);
    await undelegate(evm, D1, SIGNER, 360n * STRA);
  });

  it("rejects seal evidence that proves nothing", async () => {
    const evm = await withSigner();
    const slash = (args: readonly [Hex, Hex, Hex, Hex]) =>
      evm.write({ address, abi, functionName: "slashDoubleSeal", args, from: STRANGER });
    const [a, b, c] = [header(11n, 1), header(11n, 2), header(12n, 3)];
    await expect(slash([a, await seal(a), a, await seal(a)])).rejects.toMatchObject({
      errorName: "InvalidEvidence",
      args: ["same block"],
    });
    await expect(slash([a, await seal(a), c, await seal(c)])).rejects.toMatchObject({
      args: ["different heights"],
    });
    // After a reorganisation a validator seals again at a height it sealed on the branch it left.
    const onOtherBranch = header(11n, 4, keccak256("0xbeef"));
    await expect(slash([a, await seal(a), onOtherBranch, await seal(onOtherBranch)])).rejects.toMatchObject({
      args: ["different parents"],
    });
    await expect(slash([a, await seal(a), b, await seal(b, OTHER_KEY)])).rejects.toMatchObject({
      args: ["different signers"],
    });
    await expect(slash(["0x1234", await seal(a), b, await seal(b)])).rejects.toMatchObject({
      args: ["header is not one RLP list"],
    });
    // Two blocks of someone who is no validator.
    await expect(slash([a, await seal(a, OTHER_KEY), b, await seal(b, OTHER_KEY)])).rejects.toMatchObject({
      errorName: "UnknownValidator",
    });
    expect((await info(evm, SIGNER)).status).toBe(ACTIVE);
  });

  it("two finality votes at one height for different blocks: jailed and slashed; votes of another chain or for one block prove nothing", async () => {
    const evm = await withSigner();
    const [h1, h2] = [keccak256("0xaa"), keccak256("0xbb")];
    const slash = async (args: readonly [bigint, Hex, Hex, Hex, Hex]) =>
      evm.write({ address, abi, functionName: "slashDoubleVote", args, from: STRANGER });
    await expect(slash([20n, h1, await vote(20n, h1), h1, await vote(20n, h1)])).rejects.toMatchObject({
      args: ["same block"],
    });
    // Signed for chain 1: recovers to other addresses on this chain.
    await expect(
      slash([20n, h1, await vote(20n, h1, KEY, 1n), h2, await vote(20n, h2, KEY, 1n)]),
    ).rejects.toMatchObject({ errorName: expect.stringMatching(/InvalidEvidence|UnknownValidator/) });
    await expect(slash([20n, h1, await vote(20n, h1), h2, await vote(21n, h2)])).rejects.toMatchObject({
      args: ["different signers"],
    });
    const res = await slash([20n, h1, await vote(20n, h1), h2, await vote(20n, h2)]);
    expect(TestEvm.events(res, abi, "ValidatorSlashed")[0]).toMatchObject({ validator: SIGNER, kind: 1 });
    const slashed = await info(evm, SIGNER);
    expect(slashed.jailed).toBe(true);
    expect(slashed.selfStake + slashed.delegatedStake).toBe(1350n * STRA);
  });

  it("a validator takes at most MAX_DELEGATORS delegators, so that slashing stays bounded", async () => {
    const evm = await setup();
    expect(await evm.read({ address, abi, functionName: "DOUBLE_SIGN_SLASH" })).toBe(10n * PCT);
    const delegators = Array.from({ length: 257 }, (_, i) => testAccount(1000 + i));
    for (const d of delegators.slice(0, 256)) {
      await evm.fund(d, STRA);
      await delegate(evm, d, V3, STRA);
    }
    await evm.fund(delegators[256]!, STRA);
    await expect(delegate(evm, delegators[256]!, V3, STRA)).rejects.toMatchObject({
      errorName: "TooManyDelegators",
      args: [256n],
    });
    // A delegator leaving frees a place.
    await undelegate(evm, delegators[0]!, V3, STRA);
    await delegate(evm, delegators[256]!, V3, STRA);
  });
});
