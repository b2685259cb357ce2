import {
  type DePINRegistryConfig,
  type GenesisValidator,
  type PriceOracleConfig,
  parseCommission,
  type StakingConfig,
  type SystemContractsGenesis,
} from "@strata/contracts";
import { getAddress } from "viem";
import { z } from "zod";
import { IssuanceSection } from "./issuance.js";

const WeiAmount = z.string().regex(/^\d+$/, "expected a decimal amount of wei");
const Fraction = z
  .string()
  .regex(/^(0(\.\d{1,18})?|1(\.0{1,18})?)$/, "expected a decimal fraction between 0 and 1");
const AddressHex = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "expected a 0x-prefixed 20-byte address");
const Blocks = z.number().int().min(0);

/** A validator bonded at genesis: its address, commission (decimal fraction) and self-stake (wei). */
export const GenesisValidatorEntry = z.object({
  address: AddressHex,
  commission: Fraction,
  selfStake: WeiAmount,
});

/**
 * The Staking contract's constructor configuration and the genesis validators. The block reward is
 * given either as `blockReward` (wei per block) or as `issuance` (an annual inflation that
 * `parseNetwork` converts to `blockReward`), never both.
 */
export const StakingSection = z.object({
  minSelfStake: WeiAmount,
  // At most 64: a finality attestation names its voters in a 64-bit bitmap (docs/consensus.md "Finality").
  maxValidators: z.number().int().min(1).max(64),
  epochLength: z.number().int().min(2),
  unbondingPeriod: Blocks,
  maxCommissionChangePerEpoch: Fraction,
  jailThreshold: z.number().int().min(1),
  jailCooldown: Blocks,
  blockReward: WeiAmount.optional(),
  issuance: IssuanceSection.optional(),
  uptimeWindow: z.number().int().min(1),
  validators: z.array(GenesisValidatorEntry).min(1),
});

/** The DePINRegistry contract's constructor configuration. */
export const DePINRegistrySection = z.object({
  minBond: WeiAmount,
  heartbeatWindow: z.number().int().min(1),
  heartbeatInterval: z.number().int().min(1),
  bondReturnDelay: Blocks,
});

/** The PriceOracle contract's constructor configuration. */
export const PriceOracleSection = z.object({
  admin: AddressHex,
  staking: AddressHex,
  roundInterval: z.number().int().min(1),
  stalenessThreshold: z.number().int().min(1),
  quorum: z.number().int().min(1),
  assets: z.array(z.object({ symbol: z.string().min(1).max(32), description: z.string() })),
  reporters: z.array(AddressHex),
});

/** The `system` section of a network file: the system contracts placed in genesis. */
export const SystemSection = z.object({
  staking: StakingSection,
  depinRegistry: DePINRegistrySection,
  priceOracle: PriceOracleSection,
});
/** A parsed `system` section. */
export type SystemSection = z.output<typeof SystemSection>;

/** The `consensus` section of a network file: the proof-of-stake engine's parameters. */
export const ConsensusSection = z.object({
  engine: z.literal("pos"),
  /**
   * Seconds after which the next validator in the slot's order may seal in place of one that did
   * not: the block of the fallback at rank k needs `timestamp >= parent.timestamp + k * fallbackTimeout`.
   */
  fallbackTimeout: z.number().int().min(1),
  /** Dev networks: HD indices (m/44'/60'/0'/0/i of the dev mnemonic) of the genesis validators' keys. */
  devValidatorKeys: z.array(z.number().int().min(0)).optional(),
});
/** A parsed `consensus` section. */
export type ConsensusSection = z.output<typeof ConsensusSection>;

/** The contracts' genesis configuration (constructor arguments) described by a `system` section. */
export function systemContractsGenesis(system: SystemSection): SystemContractsGenesis {
  return {
    staking: { config: stakingConfig(system), validators: genesisValidators(system) },
    depinRegistry: depinRegistryConfig(system),
    priceOracle: priceOracleConfig(system),
  };
}

/** The Staking constructor configuration of a `system` section. */
export function stakingConfig(system: SystemSection): StakingConfig {
  const s = system.staking;
  return {
    minSelfStake: BigInt(s.minSelfStake),
    maxValidators: BigInt(s.maxValidators),
    epochLength: BigInt(s.epochLength),
    unbondingPeriod: BigInt(s.unbondingPeriod),
    maxCommissionChangePerEpoch: parseCommission(s.maxCommissionChangePerEpoch),
    jailThreshold: BigInt(s.jailThreshold),
    jailCooldown: BigInt(s.jailCooldown),
    blockReward: BigInt(requireBlockReward(s.blockReward)),
    uptimeWindow: BigInt(s.uptimeWindow),
  };
}

function requireBlockReward(blockReward: string | undefined): string {
  if (blockReward === undefined) throw new Error("system.staking: no blockReward (and no issuance)");
  return blockReward;
}

function genesisValidators(system: SystemSection): GenesisValidator[] {
  return system.staking.validators.map((v) => ({
    validator: getAddress(v.address),
    commission: parseCommission(v.commission),
    selfStake: BigInt(v.selfStake),
  }));
}

function depinRegistryConfig(system: SystemSection): DePINRegistryConfig {
  const d = system.depinRegistry;
  return {
    minBond: BigInt(d.minBond),
    heartbeatWindow: BigInt(d.heartbeatWindow),
    heartbeatInterval: BigInt(d.heartbeatInterval),
    bondReturnDelay: BigInt(d.bondReturnDelay),
  };
}

function priceOracleConfig(system: SystemSection): PriceOracleConfig {
  const o = system.priceOracle;
  return {
    admin: getAddress(o.admin),
    staking: getAddress(o.staking),
    roundInterval: BigInt(o.roundInterval),
    stalenessThreshold: BigInt(o.stalenessThreshold),
    quorum: BigInt(o.quorum),
    assets: o.assets,
    reporters: o.reporters.map((r) => getAddress(r)),
  };
}
