import type { Logger } from "pino";
import type { ReporterSettings } from "../config/reporter-settings.js";
import { devFeedSeries } from "./dev-feed.js";
import { PriceReporter } from "./price-reporter.js";

/** The node's own reporter: sends its transactions to the node's JSON-RPC endpoint like any client. */
export function createBuiltinReporter(
  settings: ReporterSettings,
  rpcUrl: string,
  logger: Logger,
): PriceReporter {
  return new PriceReporter({
    rpcUrl,
    privateKey: settings.privateKey,
    feed: settings.feed ?? devFeedSeries(),
    everyBlocks: settings.everyBlocks,
    maxIntervalSeconds: settings.maxIntervalSeconds,
    ...(settings.historyDays === undefined ? {} : { historyDays: settings.historyDays }),
    logger,
  });
}
