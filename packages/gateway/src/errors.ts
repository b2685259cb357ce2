import { ErrorCode, RpcError } from "@strata/protocol";
import type { Tier } from "./keys/tiers.js";

/** Unknown or revoked API key: HTTP 401 with -32000 "invalid API key" (never a silent downgrade). */
export class InvalidApiKeyError extends RpcError {
  constructor() {
    super(ErrorCode.Server, "invalid API key", { httpStatus: 401 });
  }
}

/** What a refused request exceeded, as sent in the error's `data`. */
export interface LimitExceededData {
  readonly tier: Tier;
  readonly limit: number;
  readonly period: "second" | "day";
  readonly retryAfterMs: number;
}

/** A rate limit or quota was exceeded: HTTP 429 with -32005 "limit exceeded" and `data`. */
export class RateLimitedError extends RpcError {
  declare readonly data: LimitExceededData;

  constructor(data: LimitExceededData) {
    super(ErrorCode.LimitExceeded, "limit exceeded", { data, httpStatus: 429 });
  }
}

/** Every upstream node is unreachable: -32002. */
export class UpstreamUnavailableError extends RpcError {
  constructor(message = "no upstream node is available") {
    super(ErrorCode.ResourceUnavailable, message);
  }
}

/** The counter store is unreachable and the gateway is configured to fail closed: HTTP 503, -32002. */
export class LimiterUnavailableError extends RpcError {
  constructor() {
    super(ErrorCode.ResourceUnavailable, "rate limiter unavailable", { httpStatus: 503 });
  }
}
