/** Seconds in a (365-day) year, the APR's unit of time. */
export const SECONDS_PER_YEAR = 365n * 24n * 3600n;

/**
 * Uptime as a percentage string with two decimals (rounded down) of `proposed` out of `assigned`
 * slots; a validator with no slot assigned yet has missed none: "100.00".
 */
export function formatUptime(proposed: bigint, assigned: bigint): string {
  if (assigned === 0n) return "100.00";
  const basisPoints = (proposed * 10_000n) / assigned;
  return `${basisPoints / 100n}.${(basisPoints % 100n).toString().padStart(2, "0")}`;
}

/** A 1e18 fixed-point fraction as a decimal string rounded down to 6 places, trailing zeros dropped ("0.0525"). */
export function formatFraction(scaled: bigint): string {
  const micro = scaled / 10n ** 12n;
  const whole = micro / 1_000_000n;
  const decimals = (micro % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  return decimals === "" ? whole.toString() : `${whole}.${decimals}`;
}
