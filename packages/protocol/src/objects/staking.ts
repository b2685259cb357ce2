import { z } from "zod";
import { DecimalText, HexText } from "./hex-text.js";
import { VALIDATOR_STATUS } from "./names.js";

/** One validator as `svc_getValidators` returns it (DECISIONS.md "Chain-specific methods"). */
export const Validator = z.object({
  address: z.string(),
  /** Total bonded stake (self + delegated), decimal wei string. */
  stake: DecimalText,
  /** Decimal fraction string, e.g. "0.05". */
  commission: DecimalText,
  /** Percent with two decimals of the slots assigned in the uptime window that it proposed. */
  uptime: DecimalText,
  status: z.enum(VALIDATOR_STATUS),
  selfStake: DecimalText,
  delegatedStake: DecimalText,
  blocksProposed: z.number(),
  blocksMissed: z.number(),
  jailed: z.boolean(),
});
/** A validator on the wire. */
export type Validator = z.infer<typeof Validator>;

/** The blocks the staking APR was measured over. */
export const AprWindow = z.object({
  /** First and last block of the span, hex. */
  fromBlock: z.string(),
  toBlock: z.string(),
  /** Completed epochs in the span, and how many a full window has. */
  epochs: z.number(),
  fullEpochs: z.number(),
  /** Chain time the span took, seconds. */
  seconds: z.number(),
  /** True once the span is a full window (`epochs === fullEpochs`); figures before that are provisional. */
  complete: z.boolean(),
});
/** An APR window on the wire. */
export type AprWindow = z.infer<typeof AprWindow>;

/** Network-wide staking figures: `svc_getStakingInfo([])`. */
export const NetworkStakingInfo = z.object({
  totalStaked: DecimalText,
  validatorCount: z.number(),
  activeValidatorCount: z.number(),
  minValidatorStake: DecimalText,
  epoch: z.number(),
  epochLength: z.number(),
  /** Hex block number. */
  nextEpochBlock: z.string(),
  /** Blocks. */
  unbondingPeriod: z.number(),
  blockReward: DecimalText,
  /** Annual rate earned by stake over `aprWindow`, decimal fraction string ("0" without a window). */
  apr: DecimalText,
  /** The blocks `apr` was measured over; null before the first epoch completes. */
  aprWindow: AprWindow.nullable(),
});
/** Network staking figures on the wire. */
export type NetworkStakingInfo = z.infer<typeof NetworkStakingInfo>;

/** `svc_getStakingInfo([address])`: the network figures plus one account's stake. */
export const AccountStakingInfo = NetworkStakingInfo.extend({
  address: z.string(),
  isValidator: z.boolean(),
  selfStake: DecimalText,
  delegations: z.array(z.object({ validator: z.string(), amount: DecimalText, pendingRewards: DecimalText })),
  unbonding: z.array(z.object({ validator: z.string(), amount: DecimalText, completionBlock: z.string() })),
  totalDelegated: DecimalText,
  pendingRewards: DecimalText,
});
/** Account staking figures on the wire. */
export type AccountStakingInfo = z.infer<typeof AccountStakingInfo>;

/** Double signing caught by a node (`svc_getDoubleSignEvidence`), with the call that reports it. */
export const DoubleSignReport = z.object({
  kind: z.enum(["seal", "vote"]),
  validator: z.string(),
  /** The height signed twice (hex quantity). */
  number: z.string(),
  /** The two block hashes signed at that height. */
  hashes: z.tuple([z.string(), z.string()]),
  /** The Staking contract: send `data` to it from any account to jail and slash the validator. */
  to: z.string(),
  data: HexText,
});
/** Double-sign evidence on the wire. */
export type DoubleSignReport = z.infer<typeof DoubleSignReport>;
