import { crc32 } from "node:zlib";
import { type Hex, toData, toQuantity } from "@strata/protocol";

/** The chain config of a geth-format genesis (`genesis.config`), read loosely. */
export type GenesisConfig = Readonly<Record<string, unknown>>;

/** The block-numbered forks of geth's `ChainConfig`, in declaration order. */
const BLOCK_FORKS = [
  "homesteadBlock",
  "daoForkBlock",
  "eip150Block",
  "eip155Block",
  "eip158Block",
  "byzantiumBlock",
  "constantinopleBlock",
  "petersburgBlock",
  "istanbulBlock",
  "muirGlacierBlock",
  "berlinBlock",
  "londonBlock",
  "arrowGlacierBlock",
  "grayGlacierBlock",
  "mergeNetsplitBlock",
] as const;

/** The timestamp-scheduled forks, in activation order (geth's `forks.Fork` after Paris). */
const TIME_FORKS = [
  "shanghai",
  "cancun",
  "prague",
  "osaka",
  "bpo1",
  "bpo2",
  "bpo3",
  "bpo4",
  "bpo5",
  "amsterdam",
  "bogota",
] as const;
type TimeFork = (typeof TIME_FORKS)[number];

/** The forks whose blob schedule entry applies from them on (named forks after Prague carry none). */
const BLOB_SCHEDULE_FORKS: readonly TimeFork[] = ["cancun", "prague", "bpo1", "bpo2", "bpo3", "bpo4", "bpo5"];

const PRECOMPILES: readonly [name: string, address: number, since: TimeFork | undefined][] = [
  ["ECREC", 0x01, undefined],
  ["SHA256", 0x02, undefined],
  ["RIPEMD160", 0x03, undefined],
  ["ID", 0x04, undefined],
  ["MODEXP", 0x05, undefined],
  ["BN254_ADD", 0x06, undefined],
  ["BN254_MUL", 0x07, undefined],
  ["BN254_PAIRING", 0x08, undefined],
  ["BLAKE2F", 0x09, undefined],
  ["KZG_POINT_EVALUATION", 0x0a, "cancun"],
  ["BLS12_G1ADD", 0x0b, "prague"],
  ["BLS12_G1MSM", 0x0c, "prague"],
  ["BLS12_G2ADD", 0x0d, "prague"],
  ["BLS12_G2MSM", 0x0e, "prague"],
  ["BLS12_PAIRING_CHECK", 0x0f, "prague"],
  ["BLS12_MAP_FP_TO_G1", 0x10, "prague"],
  ["BLS12_MAP_FP2_TO_G2", 0x11, "prague"],
  ["P256VERIFY", 0x100, "osaka"],
];

const SYSTEM_CONTRACTS: readonly [name: string, address: Hex, since: TimeFork][] = [
  ["BEACON_ROOTS_ADDRESS", "0x000f3df6d732807ef1319fb7b8bb8522d0beac02", "cancun"],
  ["CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS", "0x0000bbddc7ce488642fb579f8b00f3a590007251", "prague"],
  ["HISTORY_STORAGE_ADDRESS", "0x0000f90827f1c53a10cb7a02335b175320002935", "prague"],
  ["WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS", "0x00000961ef480eb55e80d19ad83579a64c007002", "prague"],
  ["BUILDER_DEPOSIT_CONTRACT_ADDRESS", "0x0000bff46984e3725691fa540a8c7589300d8282", "amsterdam"],
  ["BUILDER_EXIT_CONTRACT_ADDRESS", "0x000064d678505ad48f8ccb093bc65613800e8282", "amsterdam"],
];

/** One fork's configuration in EIP-7910's shape. */
export interface ForkConfig {
  readonly activationTime: number;
  readonly blobSchedule: { target: number; max: number; baseFeeUpdateFraction: number } | null;
  readonly chainId: Hex;
  readonly forkId: Hex;
  readonly precompiles: Record<string, Hex>;
  readonly systemContracts: Record<string, Hex>;
}

/** `eth_config`'s answer: the fork in force at the head, the next scheduled one, and the last. */
export interface ConfigResponse {
  readonly current: ForkConfig | null;
  readonly next: ForkConfig | null;
  readonly last: ForkConfig | null;
}

function numberAt(config: GenesisConfig, key: string): bigint | undefined {
  const value = config[key];
  if (typeof value === "number") return BigInt(value);
  if (typeof value === "string" && value !== "") return BigInt(value);
  return undefined;
}

function forkTime(config: GenesisConfig, fork: TimeFork): bigint | undefined {
  return numberAt(config, `${fork}Time`);
}

function order(fork: TimeFork): number {
  return TIME_FORKS.indexOf(fork);
}

/** The latest time fork active at `time`, or undefined before Shanghai (geth's `LatestFork`). */
function latestFork(config: GenesisConfig, time: bigint): TimeFork | undefined {
  for (let i = TIME_FORKS.length - 1; i >= 0; i--) {
    const at = forkTime(config, TIME_FORKS[i]!);
    if (at !== undefined && at <= time) return TIME_FORKS[i];
  }
  return undefined;
}

function address(n: number): Hex {
  return `0x${n.toString(16).padStart(40, "0")}`;
}

function uint64(n: bigint): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64BE(n);
  return out;
}

/** The EIP-2124 fork identifier of a node at `time` past every block fork (geth's `forkid.NewID`). */
export function forkId(
  config: GenesisConfig,
  genesisHash: Uint8Array,
  genesisTime: bigint,
  time: bigint,
): Hex {
  const unique = (values: bigint[]) => [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const byBlock = unique(
    BLOCK_FORKS.map((key) => numberAt(config, key)).filter((n): n is bigint => n !== undefined),
  ).filter((n) => n !== 0n);
  const byTime = unique(
    Object.keys(config)
      .filter((key) => key.endsWith("Time"))
      .map((key) => numberAt(config, key))
      .filter((n): n is bigint => n !== undefined),
  ).filter((t) => t > genesisTime);
  let hash = crc32(genesisHash);
  for (const block of byBlock) hash = crc32(uint64(block), hash);
  for (const at of byTime) {
    if (at > time) break;
    hash = crc32(uint64(at), hash);
  }
  const out = Buffer.alloc(4);
  out.writeUInt32BE(hash >>> 0);
  return toData(out);
}

/** The chain's identity, the genesis it starts from, and its head time: what `eth_config` describes. */
export interface ChainDescription {
  readonly config: GenesisConfig;
  readonly chainId: bigint;
  readonly genesisHash: Uint8Array;
  readonly genesisTime: bigint;
  readonly headTime: bigint;
}

function describeFork(chain: ChainDescription, fork: TimeFork): ForkConfig | null {
  const at = forkTime(chain.config, fork);
  if (at === undefined) return null;
  const reached = (since: TimeFork | undefined) => since === undefined || order(since) <= order(fork);
  const precompiles: Record<string, Hex> = {};
  for (const [name, n, since] of PRECOMPILES) if (reached(since)) precompiles[name] = address(n);
  const systemContracts: Record<string, Hex> = {};
  for (const [name, contract, since] of SYSTEM_CONTRACTS)
    if (reached(since)) systemContracts[name] = contract;
  if (reached("prague")) {
    const deposit = chain.config.depositContractAddress;
    systemContracts.DEPOSIT_CONTRACT_ADDRESS =
      typeof deposit === "string" ? (deposit.toLowerCase() as Hex) : address(0);
  }
  const schedule = (chain.config.blobSchedule ?? {}) as Record<string, Record<string, number> | undefined>;
  const blobFork = [...BLOB_SCHEDULE_FORKS].reverse().find((f) => order(f) <= order(fork) && schedule[f]);
  const blob = blobFork ? schedule[blobFork]! : undefined;
  return {
    activationTime: Number(chain.genesisTime >= at ? 0n : at),
    blobSchedule: blob
      ? {
          target: blob.target ?? 0,
          max: blob.max ?? 0,
          baseFeeUpdateFraction: blob.baseFeeUpdateFraction ?? 0,
        }
      : null,
    chainId: toQuantity(chain.chainId),
    forkId: forkId(chain.config, chain.genesisHash, chain.genesisTime, at),
    precompiles,
    systemContracts,
  };
}

/** EIP-7910's `eth_config`, computed as geth does from the genesis chain config. */
export function chainConfigResponse(chain: ChainDescription): ConfigResponse {
  const current = latestFork(chain.config, chain.headTime);
  const following = TIME_FORKS[current === undefined ? 0 : order(current) + 1];
  const latest = latestFork(chain.config, 2n ** 64n - 1n);
  const next = following ? describeFork(chain, following) : null;
  return {
    current: current ? describeFork(chain, current) : null,
    next,
    last: next && latest ? describeFork(chain, latest) : null,
  };
}
