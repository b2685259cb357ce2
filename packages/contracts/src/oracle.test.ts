import type { Hex } from "viem";
import { describe, expect, it } from "vitest";
import { PriceOracle } from "./artifacts.js";
import { PRICE_ORACLE_ADDRESS, STAKING_ADDRESS } from "./constants.js";
import {
  DEFAULT_STAKING_CONFIG,
  oracleAssetKey,
  type PriceOracleConfig,
  priceOracleCreationCode,
  stakingCreationCode,
} from "./deploy.js";
import { TestEvm, testAccount } from "./testing/evm.js";

const abi = PriceOracle.abi;
const address = PRICE_ORACLE_ADDRESS;
const ADMIN = testAccount(41);
const R1 = testAccount(42);
const R2 = testAccount(43);
const R3 = testAccount(44);
const R4 = testAccount(45);
const VALIDATOR = testAccount(46);
const OUTSIDER = testAccount(47);
const ZERO = "0x0000000000000000000000000000000000000000";

const T0 = 1_700_000_000n; // block timestamp at block 1
const START = 1_699_999_980n; // a multiple of 60: start of an interval
const USD = 10n ** 8n;

const CONFIG: PriceOracleConfig = {
  admin: ADMIN,
  staking: STAKING_ADDRESS,
  roundInterval: 60n,
  stalenessThreshold: 300n,
  quorum: 1n,
  assets: [
    { symbol: "BTC", description: "BTC / USD" },
    { symbol: "ETH", description: "ETH / USD" },
  ],
  reporters: [R1, R2, R3],
};

async function setup(config: Partial<PriceOracleConfig> = {}) {
  const evm = await TestEvm.create();
  evm.setBlock(0n, T0 - 2n);
  await evm.deployAt(
    STAKING_ADDRESS,
    stakingCreationCode({ ...DEFAULT_STAKING_CONFIG, minSelfStake: 1n }, [
      { validator: VALIDATOR, commission: 0n, selfStake: 1n },
    ]),
  );
  await evm.deployAt(address, priceOracleCreationCode({ ...CONFIG, ...config }));
  evm.mine();
  return evm;
}

const submit = (evm: TestEvm, from: Hex, price: bigint, observedAt: bigint, asset = "BTC") =>
  evm.write({ address, abi, functionName: "submit", args: [asset, price, observedAt], from });

const latest = (evm: TestEvm, asset = "BTC") =>
  evm.read({ address, abi, functionName: "latestRoundData", args: [asset] });

describe("PriceOracle: setup and administration", () => {
  it("exposes assets, reporters and the Chainlink constants", async () => {
    const evm = await setup();
    expect(await evm.read({ address, abi, functionName: "assets" })).toEqual(["BTC", "ETH"]);
    expect(await evm.read({ address, abi, functionName: "description", args: ["ETH"] })).toBe("ETH / USD");
    expect(await evm.read({ address, abi, functionName: "decimals" })).toBe(8);
    expect(await evm.read({ address, abi, functionName: "version" })).toBe(1n);
    expect(await evm.read({ address, abi, functionName: "admin" })).toBe(ADMIN);
    expect(await evm.read({ address, abi, functionName: "reporters" })).toEqual([R1, R2, R3]);
    expect(await evm.read({ address, abi, functionName: "hasAsset", args: ["BTC"] })).toBe(true);
    expect(await evm.read({ address, abi, functionName: "hasAsset", args: ["DOGE"] })).toBe(false);
    expect(await evm.read({ address, abi, functionName: "assetKey", args: ["BTC"] })).toBe(
      oracleAssetKey("BTC"),
    );
    expect(await evm.read({ address, abi, functionName: "isReporter", args: [R1] })).toBe(true);
    expect(await evm.read({ address, abi, functionName: "isReporter", args: [VALIDATOR] })).toBe(true);
    expect(await evm.read({ address, abi, functionName: "isReporter", args: [OUTSIDER] })).toBe(false);
    await expect(
      evm.read({ address, abi, functionName: "description", args: ["DOGE"] }),
    ).rejects.toMatchObject({
      errorName: "UnknownAsset",
      args: ["DOGE"],
    });
  });

  it("rejects invalid configurations", async () => {
    const evm = await setup();
    const cases: [Partial<PriceOracleConfig>, string, unknown[]][] = [
      [{ roundInterval: 0n }, "InvalidConfig", ["roundInterval"]],
      [{ quorum: 0n }, "InvalidConfig", ["quorum"]],
      [{ quorum: 65n }, "InvalidConfig", ["quorum"]],
      [{ assets: [{ symbol: "", description: "" }] }, "InvalidAsset", [""]],
      [
        {
          assets: [
            { symbol: "BTC", description: "" },
            { symbol: "BTC", description: "" },
          ],
        },
        "AssetExists",
        ["BTC"],
      ],
      [{ reporters: [R1, R1] }, "ReporterExists", [R1]],
    ];
    for (const [bad, errorName, args] of cases) {
      await expect(
        evm.deploy(priceOracleCreationCode({ ...CONFIG, ...bad }), undefined, abi),
      ).rejects.toMatchObject({ errorName, args });
    }
  });

  it("lets only the admin manage assets, reporters and the admin role", async () => {
    const evm = await setup();
    await expect(
      evm.write({ address, abi, functionName: "addAsset", args: ["SOL", "SOL / USD"], from: R1 }),
    ).rejects.toMatchObject({ errorName: "NotAdmin", args: [R1] });
    const added = await evm.write({
      address,
      abi,
      functionName: "addAsset",
      args: ["SOL", "SOL / USD"],
      from: ADMIN,
    });
    expect(TestEvm.events(added, abi, "AssetAdded")).toEqual([
      { assetKey: oracleAssetKey("SOL"), asset: "SOL", description: "SOL / USD" },
    ]);
    expect(await evm.read({ address, abi, functionName: "assets" })).toEqual(["BTC", "ETH", "SOL"]);
    await expect(
      evm.write({ address, abi, functionName: "addAsset", args: ["SOL", ""], from: ADMIN }),
    ).rejects.toMatchObject({ errorName: "AssetExists", args: ["SOL"] });
    await expect(
      evm.write({ address, abi, functionName: "addAsset", args: ["X".repeat(33), ""], from: ADMIN }),
    ).rejects.toMatchObject({ errorName: "InvalidAsset" });

    await expect(
      evm.write({ address, abi, functionName: "addReporter", args: [R4], from: R1 }),
    ).rejects.toMatchObject({ errorName: "NotAdmin" });
    const r = await evm.write({ address, abi, functionName: "addReporter", args: [R4], from: ADMIN });
    expect(TestEvm.events(r, abi, "ReporterAdded")).toEqual([{ reporter: R4 }]);
    await expect(
      evm.write({ address, abi, functionName: "addReporter", args: [R4], from: ADMIN }),
    ).rejects.toMatchObject({ errorName: "ReporterExists", args: [R4] });
    const rm = await evm.write({ address, abi, functionName: "removeReporter", args: [R1], from: ADMIN });
    expect(TestEvm.events(rm, abi, "ReporterRemoved")).toEqual([{ reporter: R1 }]);
    expect(await evm.read({ address, abi, functionName: "reporters" })).toEqual([R4, R2, R3]);
    await expect(
      evm.write({ address, abi, functionName: "removeReporter", args: [R1], from: ADMIN }),
    ).rejects.toMatchObject({ errorName: "UnknownReporter", args: [R1] });
    await expect(submit(evm, R1, USD, START)).rejects.toMatchObject({ errorName: "NotReporter", args: [R1] });

    const a = await evm.write({ address, abi, functionName: "setAdmin", args: [R2], from: ADMIN });
    expect(TestEvm.events(a, abi, "AdminChanged")).toEqual([{ previousAdmin: ADMIN, newAdmin: R2 }]);
    await expect(
      evm.write({ address, abi, functionName: "addReporter", args: [R1], from: ADMIN }),
    ).rejects.toMatchObject({ errorName: "NotAdmin", args: [ADMIN] });
    await evm.write({ address, abi, functionName: "addReporter", args: [R1], from: R2 });
  });
});

describe("PriceOracle: reports and rounds", () => {
  it("rejects reports from non-reporters, for unknown assets, with bad prices or future times", async () => {
    const evm = await setup();
    await expect(submit(evm, OUTSIDER, USD, START)).rejects.toMatchObject({
      errorName: "NotReporter",
      args: [OUTSIDER],
    });
    await expect(submit(evm, R1, USD, START, "DOGE")).rejects.toMatchObject({
      errorName: "UnknownAsset",
      args: ["DOGE"],
    });
    for (const bad of [0n, -1n, 2n ** 95n]) {
      await expect(submit(evm, R1, bad, START)).rejects.toMatchObject({
        errorName: "InvalidPrice",
        args: [bad],
      });
    }
    await submit(evm, R1, 2n ** 95n - 1n, START);
    await expect(submit(evm, R1, USD, T0 + 3_601n)).rejects.toMatchObject({
      errorName: "FutureObservation",
      args: [T0 + 3_601n, T0],
    });
  });

  it("an active validator of the Staking contract may report; without staking only the list", async () => {
    const evm = await setup();
    await submit(evm, VALIDATOR, 5n * USD, START);
    const other = await setup({ staking: ZERO });
    await expect(submit(other, VALIDATOR, 5n * USD, START)).rejects.toMatchObject({
      errorName: "NotReporter",
    });
    // a staking address without code is treated as "no validators"
    const broken = await setup({ staking: testAccount(999) });
    await expect(submit(broken, VALIDATOR, 5n * USD, START)).rejects.toMatchObject({
      errorName: "NotReporter",
    });
  });

  it("answers with the first report at once (quorum 1) and emits the round events", async () => {
    const evm = await setup();
    expect(await evm.read({ address, abi, functionName: "isStale", args: ["BTC"] })).toBe(true);
    await expect(latest(evm)).rejects.toMatchObject({ errorName: "NoDataPresent", args: ["BTC"] });
    const res = await submit(evm, R1, 65_000n * USD, START + 5n);
    const key = oracleAssetKey("BTC");
    expect(TestEvm.events(res, abi, "NewRound")).toEqual([
      { assetKey: key, roundId: 1n, startedBy: R1, startedAt: START + 5n },
    ]);
    expect(TestEvm.events(res, abi, "ReportSubmitted")).toEqual([
      { assetKey: key, roundId: 1n, reporter: R1, price: 65_000n * USD, observedAt: START + 5n },
    ]);
    expect(TestEvm.events(res, abi, "AnswerUpdated")).toEqual([
      { assetKey: key, roundId: 1n, answer: 65_000n * USD, updatedAt: START + 5n, reportCount: 1n },
    ]);
    expect(await latest(evm)).toEqual([1n, 65_000n * USD, START + 5n, START + 5n, 1n]);
    expect(await evm.read({ address, abi, functionName: "getRoundData", args: ["BTC", 1n] })).toEqual([
      1n,
      65_000n * USD,
      START + 5n,
      START + 5n,
      1n,
    ]);
    expect(await evm.read({ address, abi, functionName: "latestRoundId", args: ["BTC"] })).toBe(1n);
    // other assets are independent
    await expect(latest(evm, "ETH")).rejects.toMatchObject({ errorName: "NoDataPresent", args: ["ETH"] });
  });

  it("answers the median of an odd number of reports", async () => {
    const evm = await setup();
    await submit(evm, R1, 300n, START + 1n);
    await submit(evm, R2, 100n, START + 2n);
    expect((await latest(evm))[1]).toBe(200n);
    await submit(evm, R3, 1_000n, START + 3n);
    expect(await latest(evm)).toEqual([1n, 300n, START + 1n, START + 3n, 1n]);
  });

  it("answers the mean of the two middle reports for an even count, rounded down", async () => {
    const evm = await setup();
    await evm.write({ address, abi, functionName: "addReporter", args: [R4], from: ADMIN });
    await submit(evm, R1, 10n, START);
    await submit(evm, R2, 40n, START);
    await submit(evm, R3, 15n, START);
    await submit(evm, R4, 1_000n, START);
    expect((await latest(evm))[1]).toBe(27n); // (15 + 40) / 2 rounded down
    expect(await evm.read({ address, abi, functionName: "getRoundReports", args: ["BTC", 1n] })).toEqual([
      [R1, R2, R3, R4],
      [10n, 40n, 15n, 1_000n],
    ]);
  });

  it("accepts at most MAX_REPORTS_PER_ROUND reports per round", async () => {
    const evm = await setup();
    const max = await evm.read({ address, abi, functionName: "MAX_REPORTS_PER_ROUND" });
    const reporters = [R1, R2, R3];
    for (let i = 3; i <= Number(max); i++) {
      const r = testAccount(3000 + i);
      await evm.write({ address, abi, functionName: "addReporter", args: [r], from: ADMIN });
      reporters.push(r);
    }
    for (const [i, r] of reporters.slice(0, Number(max)).entries())
      await submit(evm, r, BigInt(i + 1), START);
    const extra = reporters[Number(max)]!;
    await expect(submit(evm, extra, 1n, START)).rejects.toMatchObject({
      errorName: "TooManyReports",
      args: [max],
    });
    expect(await latest(evm)).toEqual([1n, (max / 2n + max / 2n + 1n) / 2n, START, START, 1n]);
    // an existing reporter may still replace its report
    await submit(evm, R1, 1_000n, START);
  });

  it("a reporter's second report in the same round replaces its first", async () => {
    const evm = await setup();
    await submit(evm, R1, 100n, START + 10n);
    await submit(evm, R2, 200n, START + 20n);
    const res = await submit(evm, R1, 400n, START + 30n);
    expect(TestEvm.events(res, abi, "AnswerUpdated")[0]).toMatchObject({ answer: 300n, reportCount: 2n });
    expect(await evm.read({ address, abi, functionName: "getRoundReports", args: ["BTC", 1n] })).toEqual([
      [R1, R2],
      [400n, 200n],
    ]);
    expect(await latest(evm)).toEqual([1n, 300n, START + 10n, START + 30n, 1n]);
  });

  it("opens one round per interval and refuses reports for past intervals", async () => {
    const evm = await setup();
    await submit(evm, R1, 100n, START + 59n);
    await submit(evm, R2, 110n, START + 60n); // next interval: round 2
    expect(await latest(evm)).toEqual([2n, 110n, START + 60n, START + 60n, 2n]);
    await expect(submit(evm, R3, 120n, START + 30n)).rejects.toMatchObject({
      errorName: "ObservationTooOld",
      args: [START + 30n, START + 60n],
    });
    await submit(evm, R3, 130n, START + 119n); // still round 2
    expect(await latest(evm)).toEqual([2n, 120n, START + 60n, START + 119n, 2n]);
    await submit(evm, R1, 200n, START + 600n); // skipped intervals do not create rounds
    expect((await latest(evm))[0]).toBe(3n);
    expect(await evm.read({ address, abi, functionName: "getRoundData", args: ["BTC", 1n] })).toEqual([
      1n,
      100n,
      START + 59n,
      START + 59n,
      1n,
    ]);
    for (const id of [0n, 4n]) {
      await expect(
        evm.read({ address, abi, functionName: "getRoundData", args: ["BTC", id] }),
      ).rejects.toMatchObject({ errorName: "RoundNotFound", args: ["BTC", id] });
    }
  });

  it("with a quorum, answers only rounds that reached it and reuses the id of a round that did not", async () => {
    const evm = await setup({ quorum: 2n });
    await submit(evm, R1, 100n, START);
    await expect(latest(evm)).rejects.toMatchObject({ errorName: "NoDataPresent" });
    const res = await submit(evm, R2, 200n, START + 1n);
    expect(TestEvm.events(res, abi, "AnswerUpdated")).toHaveLength(1);
    expect(await latest(evm)).toEqual([1n, 150n, START, START + 1n, 1n]);

    await submit(evm, R1, 300n, START + 60n); // round 2, below quorum
    expect((await latest(evm))[0]).toBe(1n);
    await expect(
      evm.read({ address, abi, functionName: "getRoundData", args: ["BTC", 2n] }),
    ).rejects.toMatchObject({ errorName: "RoundNotFound" });
    await submit(evm, R2, 400n, START + 120n); // round 2 discarded, its id reused
    expect(await evm.read({ address, abi, functionName: "getRoundReports", args: ["BTC", 2n] })).toEqual([
      [R2],
      [400n],
    ]);
    await submit(evm, R3, 500n, START + 130n);
    expect(await latest(evm)).toEqual([2n, 450n, START + 120n, START + 130n, 2n]);
  });

  it("isStale compares the latest observation time with the block time", async () => {
    const evm = await setup();
    await submit(evm, R1, 100n, T0 - 10n);
    expect(await evm.read({ address, abi, functionName: "isStale", args: ["BTC"] })).toBe(false);
    evm.setBlock(2n, T0 + 290n);
    expect(await evm.read({ address, abi, functionName: "isStale", args: ["BTC"] })).toBe(false);
    evm.setBlock(3n, T0 + 291n);
    expect(await evm.read({ address, abi, functionName: "isStale", args: ["BTC"] })).toBe(true);
    expect(await evm.read({ address, abi, functionName: "isStale", args: ["ETH"] })).toBe(true);
  });
});

describe("PriceOracle: history", () => {
  const DAY = 86_400n;
  const days = 400;
  const firstDay = T0 - BigInt(days + 1) * DAY;
  const prices = Array.from({ length: days }, (_, i) => 30_000n * USD + BigInt(i) * 7n * USD);
  const times = Array.from({ length: days }, (_, i) => firstDay + BigInt(i) * DAY);

  it("seeds completed rounds in one batch and reads them back in ranges", async () => {
    const evm = await setup();
    const res = await evm.write({
      address,
      abi,
      functionName: "submitBatch",
      args: ["BTC", prices, times],
      from: R1,
    });
    expect(TestEvm.events(res, abi, "RoundsSeeded")).toEqual([
      {
        assetKey: oracleAssetKey("BTC"),
        reporter: R1,
        fromRoundId: 1n,
        toRoundId: 400n,
        updatedAt: times[399],
      },
    ]);
    console.info(`PriceOracle.submitBatch: ${res.gasUsed} gas for ${days} rounds`);
    expect(await latest(evm)).toEqual([400n, prices[399], times[399], times[399], 400n]);
    const all = await evm.read({ address, abi, functionName: "getRounds", args: ["BTC", 0n, 10_000n] });
    expect(all).toHaveLength(days);
    expect(all[0]).toEqual({
      roundId: 1n,
      answer: prices[0],
      startedAt: times[0],
      updatedAt: times[0],
      answeredInRound: 1n,
    });
    expect(all.map((r) => r.answer)).toEqual(prices);
    const tail = await evm.read({ address, abi, functionName: "getRounds", args: ["BTC", 395n, 10n] });
    expect(tail.map((r) => r.roundId)).toEqual([395n, 396n, 397n, 398n, 399n, 400n]);
    expect(await evm.read({ address, abi, functionName: "getRounds", args: ["BTC", 401n, 10n] })).toEqual([]);
    expect(await evm.read({ address, abi, functionName: "getRoundReports", args: ["BTC", 5n] })).toEqual([
      [],
      [],
    ]);

    // a batch round is closed: live reports must be in a later interval
    await expect(submit(evm, R2, 1n, times[399]! + 1n)).rejects.toMatchObject({
      errorName: "ObservationTooOld",
      args: [times[399]! + 1n, (times[399]! / 60n + 1n) * 60n],
    });
    await submit(evm, R2, 31_000n * USD, T0 - 5n);
    expect((await latest(evm))[0]).toBe(401n);
    // and a later batch must start after the live round
    await expect(
      evm.write({ address, abi, functionName: "submitBatch", args: ["BTC", [1n], [T0 - 4n]], from: R1 }),
    ).rejects.toMatchObject({ errorName: "ObservationTooOld" });
  });

  it("validates batches", async () => {
    const evm = await setup();
    const batch = (p: bigint[], t: bigint[], from: Hex = R1, asset = "BTC") =>
      evm.write({ address, abi, functionName: "submitBatch", args: [asset, p, t], from });
    await expect(batch([1n], [START], OUTSIDER)).rejects.toMatchObject({ errorName: "NotReporter" });
    await expect(batch([1n, 2n], [START])).rejects.toMatchObject({
      errorName: "LengthMismatch",
      args: [2n, 1n],
    });
    await expect(batch([], [])).rejects.toMatchObject({ errorName: "EmptyBatch" });
    await expect(batch([1n], [START], R1, "DOGE")).rejects.toMatchObject({ errorName: "UnknownAsset" });
    await expect(batch([1n, 0n], [START, START + 60n])).rejects.toMatchObject({
      errorName: "InvalidPrice",
      args: [0n],
    });
    await expect(batch([1n, 2n], [START, START + 59n])).rejects.toMatchObject({
      errorName: "ObservationTooOld",
      args: [START + 59n, START + 60n],
    });
    await expect(batch([1n, 2n], [START + 60n, START])).rejects.toMatchObject({
      errorName: "ObservationTooOld",
    });
    await expect(batch([1n], [T0 + 3_601n])).rejects.toMatchObject({ errorName: "FutureObservation" });
    expect(await evm.read({ address, abi, functionName: "latestRoundId", args: ["BTC"] })).toBe(0n);
  });
});
