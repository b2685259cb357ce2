import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { devFeedSeries } from "./dev-feed.js";
import {
  Continuation,
  dailyVolatility,
  FeedError,
  loadFeedFile,
  redate,
  simulateSeries,
  toOraclePrice,
} from "./feed.js";

const DAY = 86_400;

describe("redate", () => {
  it("puts the last close at 23:59:59 UTC yesterday and the others one day apart", () => {
    const now = Date.UTC(2026, 10, 22, 3, 4, 5) / 1000;
    const obs = redate([1, 2.5, 3.123456789], now);
    const yesterdayClose = Date.UTC(2026, 10, 21, 23, 59, 59) / 1000;
    expect(obs.map((o) => Number(o.observedAt))).toEqual([
      yesterdayClose - 2 * DAY,
      yesterdayClose - DAY,
      yesterdayClose,
    ]);
    expect(obs.map((o) => o.price)).toEqual([100_000_000n, 250_000_000n, 312_345_679n]);
  });

  it("never produces a zero price", () => {
    expect(toOraclePrice(1e-12)).toBe(1n);
  });
});

describe("series", () => {
  it("simulates a deterministic series with the requested volatility", () => {
    const spec = { startPrice: 2, dailyVolatility: 0.04, days: 3000, seed: 7 };
    const a = simulateSeries(spec);
    expect(a).toEqual(simulateSeries(spec));
    expect(a).not.toEqual(simulateSeries({ ...spec, seed: 8 }));
    expect(a[0]).toBe(2);
    expect(dailyVolatility(a, 2999)).toBeGreaterThan(0.037);
    expect(dailyVolatility(a, 2999)).toBeLessThan(0.043);
  });

  it("continues with the series' volatility scaled to the elapsed time", () => {
    const steps = (seconds: number) => {
      const c = new Continuation(0.05, 1);
      const logs: number[] = [];
      for (let i = 0; i < 4000; i++) logs.push(Math.log(Number(c.next(100_000_000_000n, seconds)) / 1e11));
      return Math.sqrt(logs.reduce((a, x) => a + x * x, 0) / logs.length);
    };
    expect(steps(DAY)).toBeGreaterThan(0.045);
    expect(steps(DAY)).toBeLessThan(0.055);
    expect(steps(DAY / 4)).toBeGreaterThan(0.0225);
    expect(steps(DAY / 4)).toBeLessThan(0.0275);
  });

  it("loads the built-in dev feed from the predictor's data", () => {
    const feed = devFeedSeries();
    expect(feed.map((s) => s.symbol)).toEqual(["BTC", "ETH", "SOL", "BNB", "STRA"]);
    expect(feed[0]!.closes).toHaveLength(3809);
    expect(feed[0]!.closes[0]).toBeCloseTo(457.334, 3);
  });
});

describe("loadFeedFile", () => {
  const dir = mkdtempSync(join(tmpdir(), "strata-feed-"));
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it("reads CSV series relative to the feed file and simulated ones", () => {
    write("x.csv", "date,close\n2024-01-01,10\n2024-01-02,11\n");
    const path = write(
      "feed.json",
      JSON.stringify({
        assets: [
          { symbol: "X", csv: "x.csv" },
          { symbol: "SIM", simulated: { startPrice: 1, dailyVolatility: 0.02, days: 5, seed: 1 } },
        ],
      }),
    );
    const feed = loadFeedFile(path);
    expect(feed[0]).toEqual({ symbol: "X", closes: [10, 11] });
    expect(feed[1]!.closes).toHaveLength(5);
  });

  it("names the problem of a bad feed", () => {
    expect(() => loadFeedFile(join(dir, "missing.json"))).toThrow(FeedError);
    expect(() => loadFeedFile(write("a.json", "{"))).toThrow(/feed .*a\.json/);
    expect(() => loadFeedFile(write("b.json", '{"assets":[]}'))).toThrow(/assets/);
    expect(() => loadFeedFile(write("c.json", '{"assets":[{"symbol":"X","csv":"nope.csv"}]}'))).toThrow(
      /feed asset X: .*nope\.csv/,
    );
  });
});
