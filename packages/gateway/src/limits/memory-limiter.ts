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

/** The most subjects (keys and IPs) whose counters are held at once, by default. */
export const MAX_LIMITER_SUBJECTS = 100_000;

/** Least time between two sweeps that a new subject arriving at a full limiter starts. */
const FULL_SWEEP_EVERY_MS = 1_000;

/**
 * Counters in process memory: the default for a single gateway (`strata dev`). A sweep every 10 s
 * drops the call times of past one-second windows and forgets a subject once nothing of it is still
 * counted: its window is empty and it has no daily quota, or its day is over. Memory follows the
 * subjects active today, up to a bound ({@link MAX_LIMITER_SUBJECTS} by default).
 *
 * A new subject always gets counters, so a full limiter never locks a new caller out. To make room it
 * sweeps first (at most once a second), then forgets the least recently charged keyless subject
 * (`ip:…`), and a keyed one (`key:…`) only when no keyless one is left. A flood from many addresses
 * therefore never resets the counters of an API key (keys are few: an operator creates them), and
 * resets those of an address only after as many other addresses as the bound have been charged since
 * that address's last call: a busy caller stays, an address idle that long starts afresh.
 */
export class MemoryRateLimiter implements RateLimiter {
  /** Counters of keyless and keyed subjects, each least recently charged first. */
  private readonly keyless = new Map<string, Counters>();
  private readonly keyed = new Map<string, Counters>();
  private readonly sweeper: NodeJS.Timeout;
  private lastSweep = Number.NEGATIVE_INFINITY;

  readonly kind = "memory";

  /**
   * `clock` is the time the sweep uses; it should be the one of the charges (default: the system
   * clock). `bound` is the most subjects held at once.
   */
  constructor(
    private readonly clock: () => number = Date.now,
    readonly bound: number = MAX_LIMITER_SUBJECTS,
  ) {
    this.sweeper = setInterval(() => this.sweep(this.clock()), SWEEP_MS);
    this.sweeper.unref();
  }

  /** Subjects (keys and IPs) with counters held. */
  get size(): number {
    return this.keyless.size + this.keyed.size;
  }

  /** Counts the charge when it fits the window and the day. */
  async consume(charge: LimitCharge): Promise<LimitOutcome> {
    const { now, cost, perSecond, perDay } = charge;
    const day = utcDay(now);
    const counters = this.countersOf(charge.subject, now, day, perDay > 0);
    if (counters.day !== day) {
      counters.day = day;
      counters.dayUsed = 0;
    }
    const times = counters.times;
    dropExpired(times, now);
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

  /** Drops what past windows and days counted (run every few seconds; public for tests). */
  sweep(now: number): void {
    this.lastSweep = now;
    const today = utcDay(now);
    for (const subjects of [this.keyless, this.keyed]) {
      for (const [subject, counters] of subjects) {
        dropExpired(counters.times, now);
        if (counters.times.length === 0 && (!counters.quota || counters.day !== today))
          subjects.delete(subject);
      }
    }
  }

  /** The counters of `subject`, moved to the most recently charged end; new ones when it has none. */
  private countersOf(subject: string, now: number, day: number, quota: boolean): Counters {
    const subjects = subject.startsWith("key:") ? this.keyed : this.keyless;
    const held = subjects.get(subject);
    if (held !== undefined) {
      subjects.delete(subject);
      subjects.set(subject, held);
      return held;
    }
    this.makeRoom(now);
    const counters: Counters = { times: [], day, dayUsed: 0, quota };
    subjects.set(subject, counters);
    return counters;
  }

  /** Frees one place when the limiter is full: a sweep, then the least recently charged keyless subject. */
  private makeRoom(now: number): void {
    if (this.size < this.bound) return;
    if (now - this.lastSweep >= FULL_SWEEP_EVERY_MS) this.sweep(now);
    if (this.size < this.bound) return;
    const from = this.keyless.size > 0 ? this.keyless : this.keyed;
    from.delete(from.keys().next().value!);
  }
}

/** Drops the call times that left the one-second window ending at `now`. */
function dropExpired(times: number[], now: number): void {
  let expired = 0;
  while (expired < times.length && times[expired]! <= now - SECOND_MS) expired++;
  if (expired > 0) times.splice(0, expired);
}
