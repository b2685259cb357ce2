import { describe, expect, it } from "vitest";
import { GatewayMetrics } from "../metrics.js";
import { AccessControl, type Identity } from "./access-control.js";
import { MemoryRateLimiter } from "./memory-limiter.js";
import type { LimitCharge, LimitOutcome, RateLimiter } from "./rate-limiter.js";

/**
 * Counters that answer only when told to: the memory limiter's answers, held until `release` (or
 * failed by `fail`), so a test can see whether a decision waited for its count.
 */
class HeldLimiter implements RateLimiter {
  readonly kind = "memory" as const;
  readonly charges: LimitCharge[] = [];
  private readonly inner = new MemoryRateLimiter();
  private held: { charge: LimitCharge; resolve: (o: LimitOutcome) => void; reject: (e: Error) => void }[] =
    [];

  ping(): Promise<void> {
    return Promise.resolve();
  }

  consume(charge: LimitCharge): Promise<LimitOutcome> {
    this.charges.push(charge);
    return new Promise((resolve, reject) => this.held.push({ charge, resolve, reject }));
  }

  async release(): Promise<void> {
    const held = this.held;
    this.held = [];
    for (const { charge, resolve } of held) resolve(await this.inner.consume(charge));
  }

  fail(error: Error): void {
    const held = this.held;
    this.held = [];
    for (const { reject } of held) reject(error);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

const ENTERPRISE: Identity = { tier: "enterprise", subject: "key:e1" };
const DEVELOPER: Identity = { tier: "developer", subject: "key:d1" };

function setup(onLimiterFailure: "open" | "closed") {
  const limiter = new HeldLimiter();
  const metrics = new GatewayMetrics();
  const warnings: unknown[] = [];
  const access = new AccessControl({
    keys: undefined,
    limiter,
    onLimiterFailure,
    clock: () => Date.UTC(2026, 10, 22, 12),
    metrics,
    warn: (error) => warnings.push(error),
  });
  const decisions = async (tier: string, decision: string) => {
    const text = await metrics.registry.metrics();
    const line = text.split("\n").find((l) => l.includes(`tier="${tier}",decision="${decision}"`));
    return line === undefined ? 0 : Number(line.split(" ").pop());
  };
  return { limiter, access, warnings, decisions };
}

/** Settles `promise` if it can without any counter answering; undefined while it still waits. */
async function settledNow<T>(promise: Promise<T>): Promise<T | undefined> {
  return Promise.race([promise, new Promise<undefined>((resolve) => setImmediate(() => resolve(undefined)))]);
}

describe("AccessControl", () => {
  it("answers an unlimited tier at once and counts its calls as the counters confirm", async () => {
    const { limiter, access, decisions } = setup("open");
    const decision = await settledNow(access.charge(ENTERPRISE, 3));
    expect(decision).toEqual({ allowed: true, tier: "enterprise", subject: "key:e1", headers: {} });
    expect(limiter.charges).toEqual([expect.objectContaining({ subject: "key:e1", cost: 3, perDay: 0 })]);
    expect(await decisions("enterprise", "allowed")).toBe(0);
    await limiter.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await decisions("enterprise", "allowed")).toBe(1);
  });

  it("still lets an unlimited tier through when the counters fail, warning once per outage", async () => {
    const { limiter, access, warnings, decisions } = setup("open");
    expect((await settledNow(access.charge(ENTERPRISE, 1)))?.allowed).toBe(true);
    expect((await settledNow(access.charge(ENTERPRISE, 1)))?.allowed).toBe(true);
    limiter.fail(new Error("redis down"));
    await new Promise((resolve) => setImmediate(resolve));
    expect(await decisions("enterprise", "failed_open")).toBe(2);
    expect(warnings).toHaveLength(1);
  });

  it("waits for the count when limiter failures close the door, and for every limited tier", async () => {
    const closed = setup("closed");
    const enterprise = closed.access.charge(ENTERPRISE, 1);
    expect(await settledNow(enterprise)).toBeUndefined();
    closed.limiter.fail(new Error("redis down"));
    expect(await enterprise).toMatchObject({
      allowed: false,
      error: { message: "rate limiter unavailable" },
    });

    const open = setup("open");
    const developer = open.access.charge(DEVELOPER, 1);
    expect(await settledNow(developer)).toBeUndefined();
    await open.limiter.release();
    expect(await developer).toMatchObject({ allowed: true, headers: { "RateLimit-Limit": "50" } });
  });
});

describe("AccessControl refusals of unknown keys", () => {
  it("remembers at most its bound of refused addresses when more are refused", async () => {
    const now = Date.UTC(2026, 10, 22, 12);
    const limiter = new MemoryRateLimiter(() => now);
    const bound = 5;
    const access = new AccessControl({
      keys: undefined,
      limiter,
      onLimiterFailure: "open",
      clock: () => now,
      maxRefusedIps: bound,
    });
    try {
      const refused = () => access.structures().find((s) => s.name === "refused_key_ips")!;
      expect(refused().bound).toBe(bound);
      for (let ip = 0; ip < 3 * bound; ip++) {
        // Free tier: ten calls a second with unknown keys are counted, the eleventh is refused and remembered.
        const answers = [];
        for (let i = 0; i < 11; i++)
          answers.push(
            await access.authorize({ apiKey: `strata_unknown_${ip}_${i}`, ip: `10.9.0.${ip}` }, 1),
          );
        expect(answers.at(-1)).toMatchObject({ allowed: false, error: { code: -32005 } });
        expect(refused().size()).toBeLessThanOrEqual(bound);
      }
      expect(refused().size()).toBe(bound);
    } finally {
      await limiter.close();
    }
  });
});
