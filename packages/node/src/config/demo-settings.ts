import { bytesToHex } from "@ethereumjs/util";
import type { Hex } from "viem";
import { z } from "zod";
import { devPrivateKey } from "./dev-keys.js";

/**
 * The `demo` section of a network file: the DePIN demo that `strata node` runs on that network. Its
 * key is the dev mnemonic's account `devKeyIndex`, so only networks with `devAccounts` (dev) can
 * have one; mainnet has neither.
 */
export const DemoSection = z.strictObject({
  /** HD index (m/44'/60'/0'/0/i of the dev mnemonic) of the account that owns the simulated devices. */
  devKeyIndex: z.number().int().min(0),
  /** The device that goes silent stops sending heartbeats this many blocks after its registration. */
  silentAfterBlocks: z.number().int().min(0),
});
/** A parsed `demo` section. */
export type DemoSection = z.output<typeof DemoSection>;

/** Settings of the node's built-in DePIN demo. */
export interface DepinDemoSettings {
  readonly privateKey: Hex;
  readonly silentAfterBlocks: number;
  /** How often the head is checked, in milliseconds (1,000 by default). */
  readonly pollMs?: number;
}

/** The DePIN demo's settings from a network's `demo` section, or null when it has none (or no dev accounts). */
export function demoFromNetwork(network: {
  readonly demo?: DemoSection | undefined;
  readonly devAccounts?: { mnemonic: string } | undefined;
}): DepinDemoSettings | null {
  const section = network.demo;
  const mnemonic = network.devAccounts?.mnemonic;
  if (!section || !mnemonic) return null;
  const key = devPrivateKey(mnemonic, section.devKeyIndex);
  return { privateKey: bytesToHex(key), silentAfterBlocks: section.silentAfterBlocks };
}
