import { BUILTIN_NETWORKS, type NodeConfigOverrides } from "@strata/node";
import { bytesToHex } from "viem";
import { mnemonicToAccount } from "viem/accounts";

/**
 * Days of daily closes the price reporter seeds: enough for the model to predict (30) and for the
 * walk-forward backtest (90 days of warm-up, then a few weeks of scored origins at 7 days).
 */
const SEEDED_HISTORY_DAYS = 120;

/**
 * A dev node with the built-in price reporter (seeding a short history) and the DePIN demo, so
 * validators, staking, DePIN nodes and predictions all have data. The demo's silent device never
 * beats here, so it is inactive from the start.
 */
export function modulesNodeSettings(): NodeConfigOverrides {
  const dev = BUILTIN_NETWORKS.dev;
  const section = dev.reporter!;
  const devKey = (index: number) =>
    bytesToHex(mnemonicToAccount(dev.devAccounts!.mnemonic, { addressIndex: index }).getHdKey().privateKey!);
  return {
    reporter: {
      privateKey: devKey(section.devKeyIndex),
      everyBlocks: section.everyBlocks,
      maxIntervalSeconds: section.maxIntervalSeconds,
      historyDays: SEEDED_HISTORY_DAYS,
    },
    demo: { privateKey: devKey(dev.demo!.devKeyIndex), silentAfterBlocks: 0, pollMs: 200 },
  };
}
