import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type GethGenesis, loadNetwork, type NetworkFile, parseNetwork } from "../config/network.js";

/** The file in which a datadir initialised by `strata init` remembers its network. */
export const DATADIR_NETWORK_FILE = "network.json";

/**
 * The Strata network of a plain geth-format genesis: named after its chain id, currency Ether
 * (ETH, 18 decimals), no dev accounts and no consensus section, so the node serves the chain and
 * only builds blocks on request (`manual`), like a geth node without a consensus client.
 */
export function networkFromGenesis(genesis: unknown, source: string): NetworkFile {
  const chainId = (genesis as { config?: { chainId?: unknown } } | null)?.config?.chainId;
  return parseNetwork(
    {
      name: `chain-${String(chainId)}`,
      chainId,
      currency: { name: "Ether", symbol: "ETH", decimals: 18 },
      mining: { mode: "manual", blockTime: 12 },
      genesis: withoutNulls(genesis) as GethGenesis,
    },
    source,
  );
}

/** geth writes absent header fields of a genesis as `null`; they mean the same as a missing field. */
function withoutNulls(genesis: unknown): unknown {
  if (typeof genesis !== "object" || genesis === null || Array.isArray(genesis)) return genesis;
  return Object.fromEntries(Object.entries(genesis).filter(([, value]) => value !== null));
}

/** The network remembered by `datadir`, or undefined when it was not initialised from a genesis file. */
export function readDatadirNetwork(datadir: string): NetworkFile | undefined {
  const path = join(datadir, DATADIR_NETWORK_FILE);
  if (!existsSync(path)) return undefined;
  return parseNetwork(JSON.parse(readFileSync(path, "utf8")), path);
}

/**
 * The network of a node given `datadir` and no `--network`: the one the datadir was initialised
 * with (`strata init`), else dev.
 */
export function datadirNetwork(datadir: string): NetworkFile {
  return readDatadirNetwork(datadir) ?? loadNetwork("dev");
}

/** Records `network` as the datadir's network. */
export function writeDatadirNetwork(datadir: string, network: NetworkFile): void {
  mkdirSync(datadir, { recursive: true });
  writeFileSync(join(datadir, DATADIR_NETWORK_FILE), `${JSON.stringify(network, null, 2)}\n`);
}
