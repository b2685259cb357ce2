import { type LimitCharge, type LimitOutcome, type RateLimiter, SECOND_MS, utcDay } from "./rate-limiter.js";

interface Counters {
  /** Times of the calls in the current window, oldest first. */
  times: number[];
  day: number;
  dayUsed: number;
  /** Whether the subject has a daily quota (its day count must be kept until the day ends). */
  quota: boolean;
}

/** How often counters of past windows and days are swept. */
const SWEEP_MS = 10_000;

/**
 * Counters in process memory: the default for a single gateway (`strata dev`). A sweep every 10 s
 * drops the call times of past one-second windows and forgets a subject once nothing of it is still
 * counted: its window is empty and it has no daily quota, or its day is over. Memory follows the
 * subjects active today, not every subject ever seen.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly counters = new Map<string, Counters>();
  private readonly sweeper: NodeJS.Timeout;

  readonly kind = "memory";

  /** `clock` is the time the sweep uses; it should be the one of the charges (default: the system clock). */
  constructor(private readonly clock: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(this.clock()), SWEEP_MS);
    this.sweeper.unref();
  }

  /** Subjects with counters held. */
  get size(): number {
    return this.counters.size;
  }

  /** Counts the charge when it fits the window and the day. */
  async consume(charge: LimitCharge): Promise<LimitOutcome> {
    const { now, cost, perSecond, perDay } = charge;
    const day = utcDay(now);
    let counters = this.counters.get(charge.subject);
    if (counters === undefined) {
      counters = { times: [], day, dayUsed: 0, quota: perDay > 0 };
      this.counters.set(charge.subject, counters);
    }
    if (counters.day !== day) {
      counters.day = day;
      counters.dayUsed = 0;
    }
    const times = counters.times;
    let expired = 0;
    while (expired < times.length && times[expired]! <= now - SECOND_MS) expired++;
    if (expired > 0) times.splice(0, expired);
    if (perSecond > 0 && times.length + cost > perSecond) {
      const blocking = times[times.length + cost - perSecond - 1];
      return {
        allowed: false,
        refusedBy: "second",
        secondUsed: times.length,
        dayUsed: counters.dayUsed,
        secondResetMs: blocking === undefined ? SECOND_MS : blocking + SECOND_MS - now,
      };
    }
    if (perDay > 0 && counters.dayUsed + cost > perDay) {
      return {
        allowed: false,
        refusedBy: "day",
        secondUsed: times.length,
        dayUsed: counters.dayUsed,
        secondResetMs: 0,
      };
    }
    if (perSecond > 0) for (let i = 0; i < cost; i++) times.push(now);
    counters.dayUsed += cost;
    return {
      allowed: true,
      refusedBy: undefined,
      secondUsed: times.length,
      dayUsed: counters.dayUsed,
      secondResetMs: times.length > 0 ? times[0]! + SECOND_MS - now : 0,
    };
  }

  /** Callers (keys and IPs) with counters in memory. */
  get subjects(): number {
    return this.counters.size;
  }

  /** Always reachable. */
  async ping(): Promise<void> {}

  /** Stops the idle sweep. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }

  /** Drops what past windows and days counted (run every few seconds; public for tests). */
  sweep(now: number): void {
    const today = utcDay(now);
    for (const [subject, counters] of this.counters) {
      const times = counters.times;
      let expired = 0;
      while (expired < times.length && times[expired]! <= now - SECOND_MS) expired++;
      if (expired > 0) times.splice(0, expired);
      if (times.length === 0 && (!counters.quota || counters.day !== today)) this.counters.delete(subject);
    }
  }
}
