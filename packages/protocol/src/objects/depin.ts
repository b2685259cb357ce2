import { z } from "zod";
import { Address } from "../schemas.js";
import { DecimalText, IsoTime } from "./hex-text.js";
import { DEPIN_NODE_TYPES } from "./names.js";

/** Default and largest page of `svc_getDePINNodes`. */
export const DEPIN_PAGE = { default: 100, max: 1000 } as const;

/** The optional filter of `svc_getDePINNodes`; unknown keys are refused. */
export const DePINFilter = z.strictObject({
  type: z.enum(DEPIN_NODE_TYPES).optional(),
  /** Exact region, compared case-insensitively. */
  region: z.string().max(64).optional(),
  /** Owner address, any case. */
  owner: Address.optional(),
  status: z.enum(["active", "inactive", "all"]).default("active"),
  offset: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(DEPIN_PAGE.max).default(DEPIN_PAGE.default),
});
/** A decoded DePIN filter (defaults applied). */
export type DePINFilter = z.output<typeof DePINFilter>;

/** One node as `svc_getDePINNodes` returns it. */
export const DePINNode = z.object({
  /** bytes32 hex id. */
  id: z.string(),
  owner: z.string(),
  type: z.string(),
  region: z.string(),
  endpoint: z.string(),
  /** Bond, decimal wei string. */
  stake: DecimalText,
  /** Block number of the registration, hex. */
  registeredAt: z.string(),
  /** Block number of the last heartbeat, hex; null before the first heartbeat. */
  lastHeartbeat: z.string().nullable(),
  /** Block time of the last heartbeat; null before the first heartbeat. */
  lastHeartbeatAt: IsoTime.nullable(),
  /** Heartbeat buckets seen / expected over the heartbeat window, percent with two decimals. */
  uptime: DecimalText,
  status: z.enum(["active", "inactive"]),
  /** Rewards earned by the node, decimal wei string (the registry pays none: always "0"). */
  rewards: DecimalText,
});
/** A DePIN node on the wire. */
export type DePINNode = z.infer<typeof DePINNode>;
