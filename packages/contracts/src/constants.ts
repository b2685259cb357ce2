import type { Address } from "viem";

/** Caller of the node's system calls (`recordSlot`, `distributeRewards`), as in EIP-4788. No key exists for it. */
export const SYSTEM_ADDRESS = "0xfffffffffffffffffffffffffffffffffffffffe" as const satisfies Address;

/** Fixed predeploy addresses of the system contracts. */
export const STAKING_ADDRESS = "0x0000000000000000000000000000000000001000" as const satisfies Address;
export const DEPIN_REGISTRY_ADDRESS = "0x0000000000000000000000000000000000002000" as const satisfies Address;
export const PRICE_ORACLE_ADDRESS = "0x0000000000000000000000000000000000003000" as const satisfies Address;

/**
 * Where the Staking contract keeps a validator's `Stats`: `_stats`, the mapping at this storage slot
 * (the struct fills one slot, `keccak256(address . slot)`), with `jailed` in the byte at
 * {@link STAKING_STATS_JAILED_OFFSET} (counted from the word's low-order end), as solc lays them out
 * (layout.test.ts checks both against the compiler's storage layout).
 */
export const STAKING_STATS_SLOT = 1n;
/** The byte offset of `Stats.jailed` in its slot (see {@link STAKING_STATS_SLOT}). */
export const STAKING_STATS_JAILED_OFFSET = 28;

/** Gas limit for one system call, outside the block gas limit (the EIP-4788 convention). */
export const SYSTEM_CALL_GAS_LIMIT = 30_000_000n;

/** Fixed-point scale of commissions (1e18 = 100 %). */
export const COMMISSION_PRECISION = 10n ** 18n;

/** Decimals of every PriceOracle answer. */
export const PRICE_DECIMALS = 8;

// `Staking.ValidatorStatus` and `DePINRegistry.NodeType` names by enum index: the wire contract's.
export {
  DEPIN_NODE_TYPES,
  type DePINNodeType,
  VALIDATOR_STATUS,
  type ValidatorStatusName,
} from "@strata/protocol/names";

/** `DePINRegistry.NodeStatus` enum values, by index. */
export const DEPIN_NODE_STATUS = ["none", "registered", "deregistered", "withdrawn"] as const;
export type DePINNodeStatusName = (typeof DEPIN_NODE_STATUS)[number];
