/** Milliseconds in the per-second window and in a UTC day. */
export const SECOND_MS = 1_000;
export const DAY_MS = 86_400_000;

/** One charge against a subject's limits; a limit of 0 means unlimited. */
export interface LimitCharge {
  /** Who is counted: `ip:<address>` without a key, `key:<id>` with one. */
  readonly subject: string;
  readonly perSecond: number;
  readonly perDay: number;
  /** Calls in this request (a batch of n costs n). */
  readonly cost: number;
  /** Milliseconds since the epoch, from the gateway's clock. */
  readonly now: number;
  /**
   * Nobody waits on this charge's outcome (an unlimited one, answered already): a limiter may group
   * it with others over a short period before counting them.
   */
  readonly deferred?: boolean;
}

/** The counters after a charge (or as they stood when it was refused). */
export interface LimitOutcome {
  readonly allowed: boolean;
  /** Which limit refused the charge. */
  readonly refusedBy: "second" | "day" | undefined;
  /** Calls counted in the last second. */
  readonly secondUsed: number;
  /** Calls counted today (UTC). */
  readonly dayUsed: number;
  /** Milliseconds until the per-second window has room for this charge (refused) or one more call. */
  readonly secondResetMs: number;
}

/**
 * Counts calls per subject in a sliding window of one second and a daily quota that resets at
 * 00:00 UTC, atomically: a charge that does not fit is refused whole and counts nothing.
 */
export interface RateLimiter {
  /** Where the counters live, for /health. */
  readonly kind: "memory" | "redis";
  /** Rejects when the counter store is unreachable. */
  ping(): Promise<void>;
  /** Counts `charge` if it fits both limits. Rejects when the counter store is unreachable. */
  consume(charge: LimitCharge): Promise<LimitOutcome>;
  close(): Promise<void>;
}

/** The UTC day number of `now`: the daily quota's key. */
export function utcDay(now: number): number {
  return Math.floor(now / DAY_MS);
}

/** Milliseconds from `now` to the next 00:00 UTC. */
export function msUntilUtcMidnight(now: number): number {
  return (utcDay(now) + 1) * DAY_MS - now;
}
