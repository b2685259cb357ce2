import { bytesToHex } from "@ethereumjs/util";
import type { Hex } from "viem";
import { z } from "zod";
import { devPrivateKey } from "./dev-keys.js";

/**
 * The `reporter` section of a network file: the built-in price reporter that `strata node` runs on
 * that network. Its key is the dev mnemonic's account `devKeyIndex` (an oracle reporter), so only
 * networks with `devAccounts` can have one.
 */
export const ReporterSection = z.strictObject({
  /** HD index (m/44'/60'/0'/0/i of the dev mnemonic) of the reporter's key. */
  devKeyIndex: z.number().int().min(0),
  /** Report the current prices every this many blocks... */
  everyBlocks: z.number().int().min(1),
  /** ... or after this many seconds without a report, whichever comes first. */
  maxIntervalSeconds: z.number().int().min(1),
});
/** A parsed `reporter` section. */
export type ReporterSection = z.output<typeof ReporterSection>;

/** One asset's daily closes, oldest first, before re-dating. */
export interface FeedSeries {
  readonly symbol: string;
  readonly closes: readonly number[];
}

/** Settings of the node's built-in price reporter. */
export interface ReporterSettings {
  readonly privateKey: Hex;
  readonly everyBlocks: number;
  readonly maxIntervalSeconds: number;
  /** Seed only the last N daily closes of each series (all by default). */
  readonly historyDays?: number;
  /** The series to report; the built-in dev feed when absent. */
  readonly feed?: readonly FeedSeries[];
}

/** The built-in reporter's settings from a network's `reporter` section, or null when it has none. */
export function reporterFromNetwork(
  network: {
    readonly reporter?: ReporterSection | undefined;
    readonly devAccounts?: { mnemonic: string } | undefined;
  },
  overrides: Partial<ReporterSettings> = {},
): ReporterSettings | null {
  const section = network.reporter;
  const mnemonic = network.devAccounts?.mnemonic;
  if (!section || !mnemonic) return null;
  const key = devPrivateKey(mnemonic, section.devKeyIndex);
  return {
    privateKey: bytesToHex(key),
    everyBlocks: section.everyBlocks,
    maxIntervalSeconds: section.maxIntervalSeconds,
    ...overrides,
  };
}
