import { type LimitCharge, type LimitOutcome, type RateLimiter, SECOND_MS, utcDay } from "./rate-limiter.js";

interface Counters {
  /** Times of the calls in the current window, oldest first. */
  times: number[];
  day: number;
  dayUsed: number;
}

/** Idle subjects are forgotten after this long without a call. */
const SWEEP_MS = 60_000;

/** Counters in process memory: the default for a single gateway (`strata dev`). */
export class MemoryRateLimiter implements RateLimiter {
  private readonly counters = new Map<string, Counters>();
  private readonly sweeper: NodeJS.Timeout;

  readonly kind = "memory";

  constructor() {
    this.sweeper = setInterval(() => this.sweep(Date.now()), SWEEP_MS);
    this.sweeper.unref();
  }

  /** Counts the charge when it fits the window and the day. */
  async consume(charge: LimitCharge): Promise<LimitOutcome> {
    const { now, cost, perSecond, perDay } = charge;
    const day = utcDay(now);
    let counters = this.counters.get(charge.subject);
    if (counters === undefined) {
      counters = { times: [], day, dayUsed: 0 };
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

  /** Always reachable. */
  async ping(): Promise<void> {}

  /** Stops the idle sweep. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }

  private sweep(now: number): void {
    for (const [subject, counters] of this.counters) {
      const last = counters.times.at(-1);
      if ((last === undefined || last < now - SWEEP_MS) && counters.day !== utcDay(now))
        this.counters.delete(subject);
    }
  }
}
