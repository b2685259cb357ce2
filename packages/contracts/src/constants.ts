import type { Address } from "viem";

/** Caller of the node's system calls (`recordSlot`, `distributeRewards`), as in EIP-4788. No key exists for it. */
export const SYSTEM_ADDRESS = "0xfffffffffffffffffffffffffffffffffffffffe" as const satisfies Address;

/** Fixed predeploy addresses of the system contracts. */
export const STAKING_ADDRESS = "0x0000000000000000000000000000000000001000" as const satisfies Address;
export const DEPIN_REGISTRY_ADDRESS = "0x0000000000000000000000000000000000002000" as const satisfies Address;
export const PRICE_ORACLE_ADDRESS = "0x0000000000000000000000000000000000003000" as const satisfies Address;

/** Gas limit for one system call, outside the block gas limit (the EIP-4788 convention). */
export const SYSTEM_CALL_GAS_LIMIT = 30_000_000n;

/** Fixed-point scale of commissions (1e18 = 100 %). */
export const COMMISSION_PRECISION = 10n ** 18n;

/** Decimals of every PriceOracle answer. */
export const PRICE_DECIMALS = 8;

/** `Staking.ValidatorStatus` enum values, by index. */
export const VALIDATOR_STATUS = ["active", "inactive", "jailed", "unbonding"] as const;
export type ValidatorStatusName = (typeof VALIDATOR_STATUS)[number];

/** `DePINRegistry.NodeType` names, by enum index. */
export const DEPIN_NODE_TYPES = ["compute", "storage", "wireless", "sensor", "energy"] as const;
export type DePINNodeType = (typeof DEPIN_NODE_TYPES)[number];

/** `DePINRegistry.NodeStatus` enum values, by index. */
export const DEPIN_NODE_STATUS = ["none", "registered", "deregistered", "withdrawn"] as const;
export type DePINNodeStatusName = (typeof DEPIN_NODE_STATUS)[number];
