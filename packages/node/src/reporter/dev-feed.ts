import { createRequire } from "node:module";
import { dirname } from "node:path";
import type { FeedSeries } from "../config/reporter-settings.js";
import { type FeedFile, resolveFeed } from "./feed.js";

/**
 * The dev network's built-in feed: historical daily closes of BTC, ETH, SOL and BNB (the CSV files
 * of `@strata/predictor/data`, sources in its README) and a simulated STRA series. Only assets the
 * oracle lists are reported.
 */
export const DEV_FEED: FeedFile = {
  assets: [
    { symbol: "BTC", csv: "BTC-USD.csv" },
    { symbol: "ETH", csv: "ETH-USD.csv" },
    { symbol: "SOL", csv: "SOL-USD.csv" },
    { symbol: "BNB", csv: "BNB-USD.csv" },
    { symbol: "STRA", simulated: { startPrice: 0.05, dailyVolatility: 0.05, days: 1095, seed: 1337 } },
  ],
};

/** The built-in dev feed with its CSV files read from the predictor package's data directory. */
export function devFeedSeries(): FeedSeries[] {
  const dataDir = dirname(createRequire(import.meta.url).resolve("@strata/predictor/data/BTC-USD.csv"));
  return resolveFeed(DEV_FEED, dataDir);
}
