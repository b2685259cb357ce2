import type { RpcError } from "@strata/protocol";
import type { Clock } from "../clock.js";
import { InvalidApiKeyError, LimiterUnavailableError, RateLimitedError } from "../errors.js";
import type { ApiKeyStore } from "../keys/key-store.js";
import { TIER_LIMITS, type Tier } from "../keys/tiers.js";
import type { GatewayMetrics, GrowingStructure } from "../metrics.js";
import { MemoryRateLimiter } from "./memory-limiter.js";
import { type LimitOutcome, msUntilUtcMidnight, type RateLimiter } from "./rate-limiter.js";

/** Default bound on remembered refusals of IPs presenting unknown keys. */
const MAX_REFUSED_IPS = 10_000;

/** Who is asking: the `X-API-Key` value (if any) and the client's IP address. */
export interface Caller {
  readonly apiKey: string | undefined;
  readonly ip: string;
}

/** The counted party of a request: its tier and the subject its calls are counted under. */
export interface Identity {
  readonly tier: Tier;
  readonly subject: string;
}

/** A refusal, with the headers to send. */
export interface AccessRefusal {
  readonly allowed: false;
  readonly tier: Tier | undefined;
  readonly error: RpcError;
  readonly headers: Record<string, string>;
}

/** The answer to "may this caller make `cost` calls now?", with the RateLimit-* headers to send. */
export type AccessDecision =
  | {
      readonly allowed: true;
      readonly tier: Tier;
      /** Whose calls these are (`key:ID` or `ip:ADDRESS`): the subject of per-caller counts. */
      readonly subject: string;
      readonly headers: Record<string, string>;
    }
  | AccessRefusal;

/** Options of {@link AccessControl}. */
export interface AccessControlOptions {
  /** Where keys are checked; without a store every key is unknown (keyless Free tier only). */
  readonly keys: ApiKeyStore | undefined;
  readonly limiter: RateLimiter;
  /** `open`: a limiter failure lets the request through; `closed`: it is refused with 503. */
  readonly onLimiterFailure: "open" | "closed";
  readonly clock: Clock;
  readonly metrics?: GatewayMetrics | undefined;
  /** Receives a warning when the limiter fails (once per outage). */
  readonly warn?: ((error: unknown) => void) | undefined;
  /** The most refusals of IPs presenting unknown keys remembered at once (default 10,000). */
  readonly maxRefusedIps?: number;
}

/**
 * The key check and the rate limiter of DECISIONS.md, for the gateway and for a node's own port:
 * no key -> Free tier per client IP; a valid key -> its tier per key; an unknown or revoked key ->
 * 401; over a limit -> 429 with -32005 and `data`. Every decision carries the RateLimit-* headers
 * (none for the unlimited Enterprise tier).
 */
export class AccessControl {
  private limiterDown = false;
  /** IPs refused while presenting unknown keys, until their limit resets. */
  private readonly refusedIps = new Map<string, { refusal: AccessRefusal; until: number }>();

  constructor(private readonly options: AccessControlOptions) {}

  /**
   * The key caches, the remembered refusals and, with the memory limiter, its subjects, with their
   * bounds, for the metrics.
   */
  structures(): GrowingStructure[] {
    const { keys, limiter } = this.options;
    return [
      ...(keys === undefined
        ? []
        : [
            {
              name: "api_key_lookups",
              unit: "entries" as const,
              bound: keys.maxCached,
              size: keys.cachedLookups.valid,
            },
            {
              name: "unknown_api_keys",
              unit: "entries" as const,
              bound: keys.maxCached,
              size: keys.cachedLookups.unknown,
            },
          ]),
      {
        name: "refused_key_ips",
        unit: "entries",
        bound: this.options.maxRefusedIps ?? MAX_REFUSED_IPS,
        size: () => this.refusedIps.size,
      },
      ...(limiter instanceof MemoryRateLimiter
        ? [
            {
              name: "limiter_subjects",
              unit: "entries" as const,
              bound: limiter.bound,
              size: () => limiter.size,
            },
          ]
        : []),
    ];
  }

  /** Checks the caller's key, then charges `cost` calls against its limits. */
  async authorize(caller: Caller, cost: number): Promise<AccessDecision> {
    const identity = await this.identify(caller);
    if (identity instanceof InvalidApiKeyError)
      return { allowed: false, tier: undefined, error: identity, headers: {} };
    if ("allowed" in identity) return identity;
    return this.charge(identity, cost);
  }

  /**
   * Who pays for the caller's calls: its key's tier and id, or the Free tier per IP without a key.
   * An unknown or revoked key is counted as a Free-tier call of the caller's IP (and cached as
   * unknown); once that IP is over its limit, keys the cache does not know are refused with 429
   * without a lookup until the limit resets, so random keys cannot each become a database query.
   */
  async identify(caller: Caller): Promise<Identity | InvalidApiKeyError | AccessRefusal> {
    const keyless: Identity = { tier: "free", subject: `ip:${caller.ip}` };
    if (caller.apiKey === undefined) return keyless;
    const keys = this.options.keys;
    const cached = caller.apiKey === "" ? null : keys?.cached(caller.apiKey);
    if (cached) return { tier: cached.tier, subject: `key:${cached.id}` };
    if (cached === undefined) {
      const refused = this.refusedIps.get(caller.ip);
      if (refused !== undefined && refused.until > this.options.clock()) return refused.refusal;
      const record = await keys?.lookup(caller.apiKey);
      if (record !== undefined) return { tier: record.tier, subject: `key:${record.id}` };
    }
    this.options.metrics?.invalidKeys.inc();
    const charged = await this.charge(keyless, 1);
    if (!charged.allowed) {
      this.rememberRefusal(caller.ip, charged);
      return charged;
    }
    return new InvalidApiKeyError();
  }

  /** Keeps an IP's refusal until its limit resets (bounded: the oldest entry goes first). */
  private rememberRefusal(ip: string, refusal: AccessRefusal): void {
    const retryAfter = Number(refusal.headers["Retry-After"] ?? 1);
    this.refusedIps.delete(ip);
    if (this.refusedIps.size >= (this.options.maxRefusedIps ?? MAX_REFUSED_IPS))
      this.refusedIps.delete(this.refusedIps.keys().next().value!);
    this.refusedIps.set(ip, { refusal, until: this.options.clock() + retryAfter * 1000 });
  }

  /** Charges `cost` calls to an identified caller. */
  async charge(identity: Identity, cost: number): Promise<AccessDecision> {
    const { tier, subject } = identity;
    const limits = TIER_LIMITS[tier];
    const now = this.options.clock();
    // A tier without limits is never refused when a limiter failure lets calls through: its calls
    // are answered at once and counted as the limiter confirms (or fails) in the background.
    const deferred =
      limits.perSecond === undefined &&
      limits.perDay === undefined &&
      this.options.onLimiterFailure === "open";
    const consumed = this.options.limiter.consume({
      subject,
      perSecond: limits.perSecond ?? 0,
      perDay: limits.perDay ?? 0,
      cost,
      now,
      deferred,
    });
    if (deferred) {
      consumed.then(
        () => {
          this.limiterUp();
          this.options.metrics?.countLimiterDecision(tier, "allowed");
        },
        (error: unknown) => {
          this.limiterFailed(error);
          this.options.metrics?.countLimiterDecision(tier, "failed_open");
        },
      );
      return { allowed: true, tier, subject, headers: {} };
    }
    let outcome: LimitOutcome;
    try {
      outcome = await consumed;
      this.limiterUp();
    } catch (error) {
      this.limiterFailed(error);
      if (this.options.onLimiterFailure === "open") {
        this.options.metrics?.countLimiterDecision(tier, "failed_open");
        return { allowed: true, tier, subject, headers: {} };
      }
      this.options.metrics?.countLimiterDecision(tier, "failed_closed");
      return { allowed: false, tier, error: new LimiterUnavailableError(), headers: {} };
    }
    const headers = rateLimitHeaders(tier, outcome, now);
    if (outcome.allowed) {
      this.options.metrics?.countLimiterDecision(tier, "allowed");
      return { allowed: true, tier, subject, headers };
    }
    this.options.metrics?.countLimiterDecision(tier, "refused");
    const period = outcome.refusedBy === "day" ? "day" : "second";
    const retryAfterMs = period === "day" ? msUntilUtcMidnight(now) : Math.max(1, outcome.secondResetMs);
    const limit = (period === "day" ? limits.perDay : limits.perSecond) ?? 0;
    return {
      allowed: false,
      tier,
      error: new RateLimitedError({ tier, limit, period, retryAfterMs }),
      headers: { ...headers, "Retry-After": String(Math.ceil(retryAfterMs / 1000)) },
    };
  }

  private limiterUp(): void {
    if (this.limiterDown) this.limiterDown = false;
  }

  /** Warns once per outage. */
  private limiterFailed(error: unknown): void {
    if (!this.limiterDown) {
      this.limiterDown = true;
      this.options.warn?.(error);
    }
  }
}

/**
 * RateLimit-Limit/-Remaining/-Reset of the policy closest to exhaustion: the per-second window
 * normally, the daily quota once fewer calls remain today than in the window.
 */
function rateLimitHeaders(tier: Tier, outcome: LimitOutcome, now: number): Record<string, string> {
  const limits = TIER_LIMITS[tier];
  if (limits.perSecond === undefined || limits.perDay === undefined) return {};
  const secondRemaining = Math.max(0, limits.perSecond - outcome.secondUsed);
  const dayRemaining = Math.max(0, limits.perDay - outcome.dayUsed);
  if (dayRemaining < secondRemaining || outcome.refusedBy === "day") {
    return {
      "RateLimit-Limit": String(limits.perDay),
      "RateLimit-Remaining": String(dayRemaining),
      "RateLimit-Reset": String(Math.ceil(msUntilUtcMidnight(now) / 1000)),
    };
  }
  return {
    "RateLimit-Limit": String(limits.perSecond),
    "RateLimit-Remaining": String(secondRemaining),
    "RateLimit-Reset": String(Math.ceil(Math.max(0, outcome.secondResetMs) / 1000)),
  };
}
