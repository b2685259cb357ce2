import { readFileSync } from "node:fs";
import { createLogger, FeedError, loadFeedFile, PriceReporter } from "@strata/node";
import { type FlagSpec, formatFlags, intFlag, parseFlags } from "../flags.js";
import { untilSignal } from "../signals.js";
import { UsageError } from "../usage-error.js";

/** Flags of `strata reporter`. */
export const REPORTER_FLAGS: Record<string, FlagSpec> = {
  rpc: { type: "string", description: "JSON-RPC URL of the node to send price transactions to (required)" },
  key: { type: "string", description: "file holding the reporter's private key, hex (required)" },
  feed: { type: "string", description: "feed file: the assets and their price series (required)" },
  "every-blocks": { type: "string", description: "report every N blocks (default 5)" },
  "max-interval": { type: "string", description: "report at least every N seconds (default 15)" },
  "history-days": { type: "string", description: "seed only the last N daily closes (default: all)" },
  "log-level": { type: "string", description: "trace | debug | info | warn | error | silent (default info)" },
  help: { type: "boolean", description: "print this help" },
};

/** Help text of `strata reporter`. */
export const REPORTER_HELP = `Usage: strata reporter --rpc URL --key FILE --feed FILE [flags]

Writes prices to the chain's PriceOracle with signed transactions: first each asset's daily closes
re-dated to end yesterday (batched), then a simulated continuation with observation time now.
The key must belong to an authorised reporter (an active validator or on the oracle's allow-list).

Flags (each also read from STRATA_<FLAG>, e.g. STRATA_RPC):
${formatFlags(REPORTER_FLAGS)}`;

/** `strata reporter`: runs until SIGINT/SIGTERM (or until `stopped` settles). */
export async function runReporter(
  argv: readonly string[],
  out: (line: string) => void,
  stopped: () => Promise<unknown> = untilSignal,
): Promise<number> {
  const values = parseFlags(argv, REPORTER_FLAGS, { command: "reporter" });
  if (values.help) {
    out(REPORTER_HELP);
    return 0;
  }
  const required = (name: string): string => {
    const value = values[name];
    if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required`);
    return value;
  };
  const rpcUrl = required("rpc");
  if (!/^https?:\/\//.test(rpcUrl)) throw new UsageError(`--rpc: expected an http(s) URL, got "${rpcUrl}"`);
  const privateKey = readKey(required("key"));
  let feed: ReturnType<typeof loadFeedFile>;
  try {
    feed = loadFeedFile(required("feed"));
  } catch (error) {
    if (error instanceof FeedError) throw new UsageError(`--feed: ${error.message}`);
    throw error;
  }
  const historyDays =
    values["history-days"] === undefined ? undefined : intFlag(values, "history-days", 0, 1, 100_000);
  const reporter = new PriceReporter({
    rpcUrl,
    privateKey,
    feed,
    everyBlocks: intFlag(values, "every-blocks", 5, 1, 1_000_000),
    maxIntervalSeconds: intFlag(values, "max-interval", 15, 1, 86_400),
    ...(historyDays === undefined ? {} : { historyDays }),
    logger: createLogger((values["log-level"] as string | undefined) ?? "info", "strata-reporter"),
  });
  let assets: string[];
  try {
    assets = await reporter.preflight();
  } catch (error) {
    process.stderr.write(`strata reporter: cannot read the oracle at ${rpcUrl}: ${firstLine(error)}\n`);
    return 1;
  }
  if (assets.length === 0) {
    process.stderr.write("strata reporter: the oracle lists none of the feed's assets\n");
    return 1;
  }
  out(`reporting ${assets.join(", ")} to ${rpcUrl} as ${reporter.address}`);
  reporter.start();
  await stopped();
  await reporter.stop();
  return 0;
}

function readKey(path: string): `0x${string}` {
  let text: string;
  try {
    text = readFileSync(path, "utf8").trim();
  } catch (error) {
    throw new UsageError(`--key: cannot read ${path}: ${(error as Error).message}`);
  }
  const hex = text.startsWith("0x") ? text.slice(2) : text;
  if (!/^[0-9a-fA-F]{64}$/.test(hex))
    throw new UsageError(`--key: ${path} does not hold a 32-byte hex private key`);
  return `0x${hex}`;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!;
}
