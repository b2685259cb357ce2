export { type Clock, systemClock } from "./clock.js";
export {
  createGatewayConfig,
  GATEWAY_DEFAULTS,
  type GatewayConfig,
  GatewayConfigError,
  type GatewayConfigOverrides,
} from "./config.js";
export {
  InvalidApiKeyError,
  type LimitExceededData,
  LimiterUnavailableError,
  RateLimitedError,
  UpstreamUnavailableError,
} from "./errors.js";
export { createGateway, type Gateway, type GatewayDependencies } from "./gateway.js";
export { hashApiKey } from "./keys/api-key.js";
export {
  type ApiKeyRecord,
  ApiKeyStore,
  type CreatedApiKey,
  KEY_MIGRATIONS,
  keyDatabaseDir,
  type OpenedKeyStore,
  openKeyStore,
} from "./keys/key-store.js";
export { isTier, TIER_LIMITS, TIERS, type Tier, type TierLimits } from "./keys/tiers.js";
export {
  AccessControl,
  type AccessControlOptions,
  type AccessDecision,
  type Caller,
  type Identity,
} from "./limits/access-control.js";
export { MemoryRateLimiter } from "./limits/memory-limiter.js";
export type { LimitCharge, LimitOutcome, RateLimiter } from "./limits/rate-limiter.js";
export { RedisRateLimiter } from "./limits/redis-limiter.js";
export { GatewayMetrics } from "./metrics.js";
export { formatUnits } from "./rpc/api-methods.js";
