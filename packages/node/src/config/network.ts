import { readFileSync } from "node:fs";
import { z } from "zod";
import { DemoSection } from "./demo-settings.js";
import { blockRewardFromIssuance, genesisSupply } from "./issuance.js";
import { ConsensusSection, SystemSection } from "./network-sections.js";
import dev from "./networks/dev.json" with { type: "json" };
import mainnet from "./networks/mainnet.json" with { type: "json" };
import { ReporterSection } from "./reporter-settings.js";

const hexString = z.string().regex(/^0x[0-9a-fA-F]*$/, "expected 0x-prefixed hex");

const GenesisAccount = z.object({
  balance: z.string(),
  nonce: z.string().optional(),
  code: hexString.optional(),
  storage: z.record(z.string(), z.string()).optional(),
});

/** A geth-format genesis (`genesis.json`): chain config plus the genesis header fields and alloc. */
export const GethGenesis = z.looseObject({
  config: z.looseObject({ chainId: z.number().int().positive() }),
  nonce: hexString.default("0x0"),
  timestamp: hexString.default("0x0"),
  extraData: hexString.default("0x"),
  gasLimit: hexString,
  difficulty: hexString.default("0x0"),
  mixHash: hexString.default(`0x${"00".repeat(32)}`),
  coinbase: hexString.default(`0x${"00".repeat(20)}`),
  baseFeePerGas: hexString.optional(),
  excessBlobGas: hexString.optional(),
  blobGasUsed: hexString.optional(),
  alloc: z.record(z.string(), GenesisAccount),
});
/** A parsed geth-format genesis. */
export type GethGenesis = z.output<typeof GethGenesis>;

/** A Strata network file: identity, currency, default mining, optional dev accounts, and the genesis. */
export const NetworkFile = z.object({
  name: z.string().min(1),
  chainId: z.number().int().positive(),
  currency: z.object({ name: z.string(), symbol: z.string(), decimals: z.number().int().min(0).max(36) }),
  mining: z.object({
    mode: z.enum(["instant", "interval", "manual"]),
    blockTime: z.number().positive(),
  }),
  devAccounts: z.object({ mnemonic: z.string(), count: z.number().int().min(1).max(1000) }).optional(),
  genesis: GethGenesis,
  /** System contracts placed in genesis (Staking, DePINRegistry, PriceOracle); absent in a plain geth genesis. */
  system: SystemSection.optional(),
  /** Proof-of-stake consensus; absent means plain blocks with coinbase zero and no seal. */
  consensus: ConsensusSection.optional(),
  /** The built-in price reporter `strata node` runs on this network (dev). */
  reporter: ReporterSection.optional(),
  /** The built-in DePIN demo `strata node` runs on this network (dev). */
  demo: DemoSection.optional(),
});
/** A parsed network file. */
export type NetworkFile = z.output<typeof NetworkFile>;

/** The networks shipped with Strata, by name. */
export const BUILTIN_NETWORKS = { dev, mainnet } as const;

/**
 * Loads a network by built-in name (`dev`, `mainnet`) or from a JSON file path, and validates it.
 * Throws an Error whose message names the bad field.
 */
export function loadNetwork(nameOrPath: string): NetworkFile {
  const raw: unknown =
    nameOrPath in BUILTIN_NETWORKS
      ? BUILTIN_NETWORKS[nameOrPath as keyof typeof BUILTIN_NETWORKS]
      : JSON.parse(readFileSync(nameOrPath, "utf8"));
  return parseNetwork(raw, nameOrPath);
}

/** Validates a network object; `source` names it in error messages. */
export function parseNetwork(raw: unknown, source: string): NetworkFile {
  const result = NetworkFile.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new Error(`network ${source}: ${issue.path.join(".")}: ${issue.message}`);
  }
  if (result.data.genesis.config.chainId !== result.data.chainId) {
    throw new Error(`network ${source}: genesis.config.chainId must equal chainId`);
  }
  if (result.data.consensus && !result.data.system) {
    throw new Error(`network ${source}: consensus: needs the system section (the Staking contract)`);
  }
  return withBlockReward(result.data, source);
}

/** Converts `system.staking.issuance` into the per-block `blockReward` the engine pays. */
function withBlockReward(network: NetworkFile, source: string): NetworkFile {
  const staking = network.system?.staking;
  if (!network.system || !staking) return network;
  if ((staking.blockReward === undefined) === (staking.issuance === undefined)) {
    throw new Error(
      `network ${source}: system.staking: give either blockReward or issuance, not both or neither`,
    );
  }
  if (!staking.issuance) return network;
  const blockReward = blockRewardFromIssuance({
    issuance: staking.issuance,
    genesisSupply: genesisSupply(
      network.genesis.alloc,
      staking.validators.map((v) => v.selfStake),
    ),
    blockTimeSeconds: network.mining.blockTime,
  });
  return {
    ...network,
    system: { ...network.system, staking: { ...staking, blockReward: blockReward.toString() } },
  };
}
