// Plain name lists, importable without the schemas (`@strata/protocol/names`), e.g. by a web bundle.

/** Validator statuses, in the order of the Staking contract's `ValidatorStatus` enum. */
export const VALIDATOR_STATUS = ["active", "inactive", "jailed", "unbonding"] as const;
/** One of {@link VALIDATOR_STATUS}. */
export type ValidatorStatusName = (typeof VALIDATOR_STATUS)[number];

/** DePIN node types, in the order of the DePINRegistry contract's `NodeType` enum. */
export const DEPIN_NODE_TYPES = ["compute", "storage", "wireless", "sensor", "energy"] as const;
/** One of {@link DEPIN_NODE_TYPES}. */
export type DePINNodeType = (typeof DEPIN_NODE_TYPES)[number];
