import { PRICE_ORACLE_ADDRESS, PriceOracle } from "@strata/contracts";
import { MODEL_VERSION } from "@strata/predictor";
import { BaseError, ContractFunctionRevertedError, formatUnits } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadNetwork } from "../../../config/network.js";
import { reporterFromNetwork } from "../../../config/reporter-settings.js";
import { devAccount, rpc, viemClients } from "../../../e2e/clients.js";
import { devFeedSeries } from "../../../reporter/dev-feed.js";
import { startTestNode, type TestNode } from "../../../testing/test-node.js";

type RpcAnswer = { result?: unknown; error?: { code: number; message: string } };

let t: TestNode;
let c: ReturnType<typeof viemClients>;
const HISTORY_DAYS = 120;
const startedAt = Math.floor(Date.now() / 1000);

beforeAll(async () => {
  // The dev feed, shortened so seeding takes a few blocks; STRA gets too little history to predict.
  const feed = devFeedSeries().map((s) => ({
    symbol: s.symbol,
    closes: s.closes.slice(s.symbol === "STRA" ? -10 : -HISTORY_DAYS),
  }));
  const reporter = reporterFromNetwork(loadNetwork("dev"), { feed, everyBlocks: 1, maxIntervalSeconds: 1 });
  t = await startTestNode({ reporter });
  c = viemClients(t.url);
  await t.node.reporter!.seeded;
});

afterAll(() => t.stop());

const predict = async (params: unknown[]) => (await rpc(t.url, "svc_getAIPrediction", params)) as RpcAnswer;

const latest = (asset: string) =>
  c.publicClient.readContract({
    address: PRICE_ORACLE_ADDRESS,
    abi: PriceOracle.abi,
    functionName: "latestRoundData",
    args: [asset],
  });

describe("the dev reporter", () => {
  it("seeds the history re-dated to end yesterday, one round per day", async () => {
    const rounds = await c.publicClient.readContract({
      address: PRICE_ORACLE_ADDRESS,
      abi: PriceOracle.abi,
      functionName: "getRounds",
      args: ["BTC", 1n, BigInt(HISTORY_DAYS)],
    });
    expect(rounds).toHaveLength(HISTORY_DAYS);
    const yesterdayClose = Math.floor(startedAt / 86_400) * 86_400 - 1;
    expect(Number(rounds.at(-1)!.updatedAt)).toBe(yesterdayClose);
    expect(Number(rounds[0]!.updatedAt)).toBe(yesterdayClose - (HISTORY_DAYS - 1) * 86_400);
  });

  it("then reports the current price with observation time now", async () => {
    await expect
      .poll(async () => Number((await latest("BTC"))[3]), { timeout: 30_000, interval: 200 })
      .toBeGreaterThanOrEqual(startedAt);
  });
});

describe("oracle reporters on the dev chain", () => {
  const submit = (index: number) =>
    viemClients(t.url, index).publicClient.simulateContract({
      account: devAccount(index),
      address: PRICE_ORACLE_ADDRESS,
      abi: PriceOracle.abi,
      functionName: "submit",
      args: ["ETH", 3_000n * 10n ** 8n, BigInt(Math.floor(Date.now() / 1000))],
    });

  it("refuses a report from an account that is neither a validator nor allow-listed", async () => {
    const error = await submit(0).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BaseError);
    const revert = (error as BaseError).walk((e) => e instanceof ContractFunctionRevertedError);
    expect((revert as ContractFunctionRevertedError).data?.errorName).toBe("NotReporter");
  });

  it("accepts a report from an active validator", async () => {
    await expect(submit(100)).resolves.toBeDefined();
  });
});

describe("svc_getAIPrediction", () => {
  it("predicts from the on-chain history with an 80 % interval and a confidence", async () => {
    const res = await predict(["BTC", 7]);
    expect(res.error).toBeUndefined();
    const p = res.result as Record<string, unknown>;
    expect(Object.keys(p).sort()).toEqual(
      [
        "asset",
        "confidence",
        "currentPrice",
        "horizon",
        "lower",
        "modelVersion",
        "predictedPrice",
        "probabilityUp",
        "quantiles",
        "source",
        "stale",
        "timestamp",
        "upper",
      ].sort(),
    );
    expect(p.asset).toBe("BTC");
    expect(p.horizon).toBe(7);
    expect(p.modelVersion).toBe(MODEL_VERSION);
    for (const key of ["currentPrice", "predictedPrice", "lower", "upper", "confidence"]) {
      expect(p[key], key).toMatch(/^\d+(\.\d+)?$/);
    }
    const [lower, predicted, upper] = [p.lower, p.predictedPrice, p.upper].map(Number) as [
      number,
      number,
      number,
    ];
    expect(lower).toBeLessThan(predicted);
    expect(predicted).toBeLessThan(upper);
    // The quantiles ascend; the 10/50/90 % ones are lower, predictedPrice and upper.
    const q = p.quantiles as Record<string, string>;
    expect(Object.keys(q).sort()).toEqual(["10", "25", "5", "50", "75", "90", "95"]);
    const levels = ["5", "10", "25", "50", "75", "90", "95"].map((k) => Number(q[k]));
    expect([...levels].sort((a, b) => a - b)).toEqual(levels);
    expect([q["10"], q["50"], q["90"]]).toEqual([p.lower, p.predictedPrice, p.upper]);
    expect(Number(p.probabilityUp)).toBeGreaterThan(0.3);
    expect(Number(p.probabilityUp)).toBeLessThan(0.7);
    // A live report at most a few seconds old: fresh.
    expect(p.stale).toBe(false);
    expect(Number(p.confidence)).toBeGreaterThan(0);
    expect(Number(p.confidence)).toBeLessThan(1);
    // The latest price used is a live report: recent, and the oracle's answer at that time or later.
    expect(Date.parse(p.timestamp as string) / 1000).toBeGreaterThanOrEqual(startedAt);
    expect(Number(p.currentPrice)).toBeGreaterThan(0);
    const [, answer] = await latest("BTC");
    expect(Number(formatUnits(answer, 8)) / Number(p.currentPrice)).toBeCloseTo(1, 1);
  });

  it("answers a longer horizon with a wider interval", async () => {
    const [short, long] = await Promise.all([predict(["ETH", 1]), predict(["ETH", 30])]);
    const width = (r: RpcAnswer) => {
      const p = r.result as Record<string, string>;
      return Number(p.upper) / Number(p.lower);
    };
    expect(width(long)).toBeGreaterThan(width(short));
  });

  it("refuses an unknown asset with -32001 and too little history with -32002", async () => {
    const unknown = await predict(["DOGE", 7]);
    expect(unknown.error?.code).toBe(-32001);
    expect(unknown.error?.message).toMatch(/DOGE/);
    const short = await predict(["STRA", 7]);
    expect(short.error?.code).toBe(-32002);
    expect(short.error?.message).toMatch(/insufficient price history for STRA/);
  });

  it("refuses horizons outside 1..365 or not whole days with -32602", async () => {
    for (const horizon of [0, 366, 1.5, -1, "7", null]) {
      const res = await predict(["BTC", horizon]);
      expect(res.error?.code, String(horizon)).toBe(-32602);
      expect(res.error?.message).toMatch(/argument 1/);
    }
    expect((await predict(["BTC"])).error?.code).toBe(-32602);
    expect((await predict([7, 7])).error?.code).toBe(-32602);
  });
});
