/** The rate-limit tiers of DECISIONS.md. */
export const TIERS = ["free", "developer", "enterprise"] as const;

/** A rate-limit tier. */
export type Tier = (typeof TIERS)[number];

/** Limits of one tier; `undefined` means unlimited. */
export interface TierLimits {
  readonly perSecond: number | undefined;
  readonly perDay: number | undefined;
}

/** Free 10/s and 100,000/day; Developer 50/s and 1,000,000/day; Enterprise unlimited. */
export const TIER_LIMITS: Readonly<Record<Tier, TierLimits>> = {
  free: { perSecond: 10, perDay: 100_000 },
  developer: { perSecond: 50, perDay: 1_000_000 },
  enterprise: { perSecond: undefined, perDay: undefined },
};

/** True when `value` names a tier. */
export function isTier(value: string): value is Tier {
  return (TIERS as readonly string[]).includes(value);
}
