import { z } from "zod";

/** Seconds in the (365-day) year that annual rates refer to. */
const SECONDS_PER_YEAR = 365n * 24n * 3600n;
const FRACTION_DIGITS = 18;

/**
 * How a network issues new coins (`system.staking.issuance`): `annualInflation` of the genesis supply
 * (every genesis balance plus the genesis validators' self-stake), paid as a fixed reward per block
 * at the network's `mining.blockTime`.
 */
export const IssuanceSection = z.strictObject({
  annualInflation: z
    .string()
    .regex(/^(0(\.\d{1,18})?|1(\.0{1,18})?)$/, "expected a decimal fraction between 0 and 1"),
});
/** A parsed `issuance` section. */
export type IssuanceSection = z.output<typeof IssuanceSection>;

/** What the per-block reward is derived from. */
export interface IssuanceInputs {
  readonly issuance: IssuanceSection;
  /** Wei in existence at genesis. */
  readonly genesisSupply: bigint;
  /** Seconds between blocks (the network's `mining.blockTime`). */
  readonly blockTimeSeconds: number;
}

/**
 * The per-block reward (wei, rounded down) that issues `annualInflation` of the genesis supply per
 * 365-day year at one block per `blockTimeSeconds`:
 * `genesisSupply × annualInflation × blockTime / 31,536,000`.
 */
export function blockRewardFromIssuance({
  issuance,
  genesisSupply,
  blockTimeSeconds,
}: IssuanceInputs): bigint {
  const [whole = "0", fraction = ""] = issuance.annualInflation.split(".");
  const scale = 10n ** BigInt(FRACTION_DIGITS);
  const rate = BigInt(whole) * scale + BigInt(fraction.padEnd(FRACTION_DIGITS, "0"));
  // Block times may be fractional seconds: count them in milliseconds.
  const blockMs = BigInt(Math.round(blockTimeSeconds * 1000));
  return (genesisSupply * rate * blockMs) / (scale * SECONDS_PER_YEAR * 1000n);
}

/** Wei in existence at genesis: every alloc balance plus the self-stake the Staking contract receives. */
export function genesisSupply(
  alloc: Readonly<Record<string, { readonly balance: string }>>,
  selfStakes: readonly string[],
): bigint {
  let total = 0n;
  for (const account of Object.values(alloc)) total += BigInt(account.balance);
  for (const stake of selfStakes) total += BigInt(stake);
  return total;
}
