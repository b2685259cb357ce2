import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parsePriceCsv } from "@strata/predictor";
import { z } from "zod";
import type { FeedSeries } from "../config/reporter-settings.js";
import { seededNormal } from "./random.js";

/** A simulated daily series: geometric random walk with the given daily volatility, seeded. */
const SimulatedSeries = z.strictObject({
  startPrice: z.number().positive(),
  dailyVolatility: z.number().positive().max(1),
  days: z.number().int().min(2).max(100_000),
  seed: z.number().int().min(0),
});

const FeedAsset = z.union([
  z.strictObject({ symbol: z.string().min(1).max(32), csv: z.string().min(1) }),
  z.strictObject({ symbol: z.string().min(1).max(32), simulated: SimulatedSeries }),
]);

/**
 * A feed file (`strata reporter --feed FILE`): the assets to report, each from a daily-close CSV
 * (`date,close`, path relative to the feed file) or a simulated series.
 */
export const FeedFile = z.strictObject({ assets: z.array(FeedAsset).min(1) });
/** A parsed feed file. */
export type FeedFile = z.output<typeof FeedFile>;

/** A feed file that cannot be read or is malformed. */
export class FeedError extends Error {}

/** Reads and validates a feed file and the CSV files it names. */
export function loadFeedFile(path: string): FeedSeries[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new FeedError(`feed ${path}: ${(error as Error).message}`);
  }
  const parsed = FeedFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new FeedError(`feed ${path}: ${issue.path.join(".")}: ${issue.message}`);
  }
  return resolveFeed(parsed.data, dirname(path));
}

/** Turns a parsed feed into series; CSV paths are resolved against `baseDir`. */
export function resolveFeed(feed: FeedFile, baseDir: string): FeedSeries[] {
  return feed.assets.map((asset) => {
    if ("csv" in asset) {
      const file = resolve(baseDir, asset.csv);
      try {
        return {
          symbol: asset.symbol,
          closes: parsePriceCsv(readFileSync(file, "utf8")).map((r) => r.close),
        };
      } catch (error) {
        throw new FeedError(`feed asset ${asset.symbol}: ${file}: ${(error as Error).message}`);
      }
    }
    return { symbol: asset.symbol, closes: simulateSeries(asset.simulated) };
  });
}

/** Daily closes of a geometric random walk: deterministic for its seed. */
export function simulateSeries(spec: z.output<typeof SimulatedSeries>): number[] {
  const normal = seededNormal(spec.seed);
  const closes: number[] = [];
  let logPrice = Math.log(spec.startPrice);
  const drift = -0.5 * spec.dailyVolatility ** 2;
  for (let i = 0; i < spec.days; i++) {
    closes.push(Math.exp(logPrice));
    logPrice += drift + spec.dailyVolatility * normal();
  }
  return closes;
}

const DAY = 86_400;

/** A price observation to report: 8-decimal price and observation time (unix seconds). */
export interface Observation {
  readonly price: bigint;
  readonly observedAt: bigint;
}

/**
 * Re-dates daily closes so the last one is yesterday's close (23:59:59 UTC of the day before
 * `nowSeconds`) and each earlier close falls on the day before; prices get the oracle's 8 decimals.
 */
export function redate(closes: readonly number[], nowSeconds: number): Observation[] {
  const today = Math.floor(nowSeconds / DAY);
  const lastClose = today * DAY - 1;
  const n = closes.length;
  return closes.map((close, i) => ({
    price: toOraclePrice(close),
    observedAt: BigInt(lastClose - (n - 1 - i) * DAY),
  }));
}

/** A price in the oracle's fixed point (8 decimals), at least 1. */
export function toOraclePrice(price: number): bigint {
  const scaled = BigInt(Math.round(price * 1e8));
  return scaled > 0n ? scaled : 1n;
}

/** Standard deviation of the daily log returns of the last `window` closes (the series' own volatility). */
export function dailyVolatility(closes: readonly number[], window = 90): number {
  const tail = closes.slice(-window - 1);
  const returns: number[] = [];
  for (let i = 1; i < tail.length; i++) returns.push(Math.log(tail[i]! / tail[i - 1]!));
  if (returns.length < 2) return 0.03;
  const mean = returns.reduce((a, b) => a + b, 0) / returns.length;
  const variance = returns.reduce((a, r) => a + (r - mean) ** 2, 0) / (returns.length - 1);
  return Math.sqrt(variance);
}

/**
 * The simulated continuation of a series: a geometric random walk with the series' own daily
 * volatility, scaled to the time elapsed since the previous price.
 */
export class Continuation {
  private readonly normal: () => number;

  constructor(
    private readonly volatility: number,
    seed: number,
  ) {
    this.normal = seededNormal(seed);
  }

  /** The next price `elapsedSeconds` after `previous` (8 decimals). */
  next(previous: bigint, elapsedSeconds: number): bigint {
    const days = Math.max(elapsedSeconds, 1) / DAY;
    const sigma = this.volatility * Math.sqrt(days);
    const change = -0.5 * sigma * sigma + sigma * this.normal();
    return toOraclePrice((Number(previous) / 1e8) * Math.exp(change));
  }
}
