import {
  type Address,
  encodeDeployData,
  encodeFunctionData,
  formatUnits,
  type Hex,
  keccak256,
  parseUnits,
  toBytes,
} from "viem";
import { DePINRegistry, PriceOracle, Staking, TestToken } from "./artifacts.js";
import { DEPIN_REGISTRY_ADDRESS, PRICE_ORACLE_ADDRESS, STAKING_ADDRESS } from "./constants.js";

const STRA = 10n ** 18n;

/** Creation code (init bytecode + ABI-encoded constructor arguments) and the value the constructor receives. */
export interface CreationCode {
  readonly data: Hex;
  readonly value: bigint;
}

// ------------------------------------------------------------------ Staking

export interface StakingConfig {
  /** Minimum self-stake of a validator, wei. */
  readonly minSelfStake: bigint;
  /** Size of the active validator set. */
  readonly maxValidators: bigint;
  /** Blocks per epoch; epoch e = blocks [e * epochLength, (e + 1) * epochLength). */
  readonly epochLength: bigint;
  /** Blocks between undelegate() and the earliest withdraw(). */
  readonly unbondingPeriod: bigint;
  /** Largest commission move within one epoch, 1e18 fixed point. */
  readonly maxCommissionChangePerEpoch: bigint;
  /** Consecutive missed slots that jail a validator. */
  readonly jailThreshold: bigint;
  /** Blocks a jailed validator waits before unjail(). */
  readonly jailCooldown: bigint;
  /** Block reward in wei, minted by the node and passed to distributeRewards at epoch end. */
  readonly blockReward: bigint;
  /** Number of most recent slots the uptime counters cover. */
  readonly uptimeWindow: bigint;
}

export interface GenesisValidator {
  readonly validator: Address;
  /** 1e18 fixed point (5 % = 5n * 10n ** 16n). */
  readonly commission: bigint;
  /** Self-stake in wei, paid by the constructor's msg.value. */
  readonly selfStake: bigint;
}

export const DEFAULT_STAKING_CONFIG: StakingConfig = {
  minSelfStake: 1_000n * STRA,
  maxValidators: 21n,
  epochLength: 1_800n, // one hour of 2 s blocks
  unbondingPeriod: 302_400n, // seven days of 2 s blocks
  maxCommissionChangePerEpoch: 10n ** 16n, // one percentage point
  jailThreshold: 50n,
  jailCooldown: 1_800n,
  blockReward: 2n * STRA,
  uptimeWindow: 10_000n,
};

export function stakingCreationCode(
  config: StakingConfig,
  validators: readonly GenesisValidator[],
): CreationCode {
  const value = validators.reduce((sum, v) => sum + v.selfStake, 0n);
  const data = encodeDeployData({
    abi: Staking.abi,
    bytecode: Staking.bytecode,
    args: [config, validators],
  });
  return { data, value };
}

// ------------------------------------------------------------------ DePINRegistry

export interface DePINRegistryConfig {
  /** Minimum bond of a node, wei. */
  readonly minBond: bigint;
  /** A node is active while its last heartbeat is at most this many blocks old; also the uptime window. */
  readonly heartbeatWindow: bigint;
  /** Expected heartbeat cadence in blocks; heartbeatWindow / heartbeatInterval must be 1..32. */
  readonly heartbeatInterval: bigint;
  /** Blocks between deregister() and withdrawBond(). */
  readonly bondReturnDelay: bigint;
}

export const DEFAULT_DEPIN_REGISTRY_CONFIG: DePINRegistryConfig = {
  minBond: 100n * STRA,
  heartbeatWindow: 300n,
  heartbeatInterval: 30n,
  bondReturnDelay: 43_200n, // one day of 2 s blocks
};

export function depinRegistryCreationCode(config: DePINRegistryConfig): CreationCode {
  return {
    data: encodeDeployData({ abi: DePINRegistry.abi, bytecode: DePINRegistry.bytecode, args: [config] }),
    value: 0n,
  };
}

// ------------------------------------------------------------------ PriceOracle

export interface OracleAsset {
  /** Symbol, 1..32 bytes, e.g. "BTC". */
  readonly symbol: string;
  /** e.g. "BTC / USD". */
  readonly description: string;
}

export interface PriceOracleConfig {
  /** Manages assets and the reporter allow-list. */
  readonly admin: Address;
  /** Staking contract whose active validators may also report; the zero address disables that. */
  readonly staking: Address;
  /** Seconds of observation time per round. */
  readonly roundInterval: bigint;
  /** isStale() is true when the latest answer is older than this many seconds. */
  readonly stalenessThreshold: bigint;
  /** Reports needed before a round is answered (1 = every report answers at once). */
  readonly quorum: bigint;
  readonly assets: readonly OracleAsset[];
  /** Allow-listed reporters. */
  readonly reporters: readonly Address[];
}

export const DEFAULT_ORACLE_ASSETS: readonly OracleAsset[] = [
  { symbol: "STRA", description: "STRA / USD" },
  { symbol: "BTC", description: "BTC / USD" },
  { symbol: "ETH", description: "ETH / USD" },
];

export const DEFAULT_PRICE_ORACLE_CONFIG: Omit<PriceOracleConfig, "admin" | "reporters"> = {
  staking: STAKING_ADDRESS,
  roundInterval: 60n,
  stalenessThreshold: 3_600n,
  quorum: 1n,
  assets: DEFAULT_ORACLE_ASSETS,
};

export function priceOracleCreationCode(config: PriceOracleConfig): CreationCode {
  const args = [
    {
      admin: config.admin,
      staking: config.staking,
      roundInterval: config.roundInterval,
      stalenessThreshold: config.stalenessThreshold,
      quorum: config.quorum,
      assets: config.assets.map((a) => a.symbol),
      descriptions: config.assets.map((a) => a.description),
      reporters: config.reporters,
    },
  ] as const;
  return {
    data: encodeDeployData({ abi: PriceOracle.abi, bytecode: PriceOracle.bytecode, args }),
    value: 0n,
  };
}

/** The key the oracle uses for an asset symbol (also the first indexed topic of its events). */
export function oracleAssetKey(symbol: string): Hex {
  return keccak256(toBytes(symbol));
}

// ------------------------------------------------------------------ TestToken

export interface TestTokenParams {
  readonly name: string;
  readonly symbol: string;
  /** Minted to the deployer, wei (18 decimals). */
  readonly initialSupply: bigint;
}

export function testTokenCreationCode(params: TestTokenParams): CreationCode {
  return {
    data: encodeDeployData({
      abi: TestToken.abi,
      bytecode: TestToken.bytecode,
      args: [params.name, params.symbol, params.initialSupply],
    }),
    value: 0n,
  };
}

// ------------------------------------------------------------------ genesis

export interface SystemContractsGenesis {
  readonly staking: { readonly config: StakingConfig; readonly validators: readonly GenesisValidator[] };
  readonly depinRegistry: DePINRegistryConfig;
  readonly priceOracle: PriceOracleConfig;
}

export interface Predeploy {
  readonly name: "Staking" | "DePINRegistry" | "PriceOracle";
  readonly address: Address;
  /** Run as init code with `address(this) == address` (see README: "Genesis"). */
  readonly data: Hex;
  /** Credit this much to `address` (the constructor's msg.value). */
  readonly value: bigint;
}

/** The three system contracts with their fixed addresses and creation code, in deployment order. */
export function systemPredeploys(genesis: SystemContractsGenesis): Predeploy[] {
  return [
    {
      name: "Staking",
      address: STAKING_ADDRESS,
      ...stakingCreationCode(genesis.staking.config, genesis.staking.validators),
    },
    {
      name: "DePINRegistry",
      address: DEPIN_REGISTRY_ADDRESS,
      ...depinRegistryCreationCode(genesis.depinRegistry),
    },
    { name: "PriceOracle", address: PRICE_ORACLE_ADDRESS, ...priceOracleCreationCode(genesis.priceOracle) },
  ];
}

// ------------------------------------------------------------------ system calls

/** Calldata of `Staking.recordSlot(proposer, missed)`, sent by SYSTEM_ADDRESS to STAKING_ADDRESS every block. */
export function encodeRecordSlot(proposer: Address, missed: readonly Address[] = []): Hex {
  return encodeFunctionData({ abi: Staking.abi, functionName: "recordSlot", args: [proposer, missed] });
}

/** Calldata of `Staking.distributeRewards()`, sent by SYSTEM_ADDRESS with the epoch's rewards as value. */
export function encodeDistributeRewards(): Hex {
  return encodeFunctionData({ abi: Staking.abi, functionName: "distributeRewards" });
}

// ------------------------------------------------------------------ commission

/** "0.05" -> 5e16 (1e18 fixed point). */
export function parseCommission(decimal: string): bigint {
  return parseUnits(decimal, 18);
}

/** 5e16 -> "0.05" (the form svc_getValidators reports). */
export function formatCommission(commission: bigint): string {
  return formatUnits(commission, 18);
}
