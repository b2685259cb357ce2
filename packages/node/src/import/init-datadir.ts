import { readFileSync } from "node:fs";
import { bytesToHex } from "@ethereumjs/util";
import { openChain } from "../chain/open-chain.js";
import { networkFromGenesis, readDatadirNetwork, writeDatadirNetwork } from "./datadir-network.js";
import { InitError } from "./errors.js";

/** The outcome of {@link initDatadir}. */
export interface InitResult {
  readonly chainId: number;
  readonly genesisHash: string;
  /** False when the datadir already held this very genesis (init is idempotent). */
  readonly created: boolean;
}

/**
 * Initialises `datadir` from a geth-format genesis file: validates it, writes the genesis state and
 * block, and records the network in the datadir so the node later serves this chain without
 * `--network`. Re-running with the same genesis changes nothing; a different genesis is refused.
 */
export async function initDatadir(genesisPath: string, datadir: string): Promise<InitResult> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(genesisPath, "utf8"));
  } catch (error) {
    throw new InitError(`cannot read genesis ${genesisPath}: ${(error as Error).message}`);
  }
  let network: ReturnType<typeof networkFromGenesis>;
  try {
    network = networkFromGenesis(raw, genesisPath);
  } catch (error) {
    throw new InitError((error as Error).message);
  }
  let existing: ReturnType<typeof readDatadirNetwork>;
  try {
    existing = readDatadirNetwork(datadir);
  } catch (error) {
    throw new InitError(`datadir ${datadir}: ${(error as Error).message}`);
  }
  if (existing && canonicalJson(existing.genesis) !== canonicalJson(network.genesis)) {
    throw new InitError(
      `datadir ${datadir} was initialised with another genesis (chain id ${existing.chainId}): use a new datadir`,
    );
  }
  let opened: Awaited<ReturnType<typeof openChain>>;
  try {
    opened = await openChain(network, datadir, { durableCommits: false });
  } catch (error) {
    throw new InitError(`datadir ${datadir}: ${(error as Error).message}`);
  }
  try {
    const genesisHash = bytesToHex(opened.chain.genesis.hash());
    if (!existing) writeDatadirNetwork(datadir, network);
    return { chainId: network.chainId, genesisHash, created: existing === undefined };
  } finally {
    await opened.close();
  }
}

/** JSON with object keys sorted, so two genesis objects compare equal whatever their key order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
