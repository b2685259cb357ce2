import { createBlockHeader } from "@ethereumjs/block";
import { Common, type GethGenesis as EthereumjsGethGenesis, parseGethGenesis } from "@ethereumjs/common";
import { createTx } from "@ethereumjs/tx";
import { createVM } from "@ethereumjs/vm";
import type { GethGenesis, NetworkFile } from "../../config/network.js";
import { nativeCrypto } from "../../crypto/native-crypto.js";
import { fastEipLookup, fastHardforkLookup } from "./evm-tuning.js";
import { cacheJumpAnalysis } from "./jump-analyses.js";
import { kzg } from "./kzg.js";

/**
 * Builds the @ethereumjs Common of a network from its geth-format genesis (block- and
 * timestamp-scheduled forks, blob schedule), with native sender recovery and KZG, set to the rules
 * in force at genesis. Blocks choose their own rules by number and timestamp when they are built,
 * decoded or executed; {@link followHead} moves the shared Common to the head's rules.
 */
export async function createChainCommon(network: NetworkFile): Promise<Common> {
  const common = commonFromGethGenesis(network.genesis, network.name);
  common.setHardforkBy({ blockNumber: 0n, timestamp: BigInt(network.genesis.timestamp) });
  memoizeParamUpdates(common);
  fastEipLookup(common);
  fastHardforkLookup(common);
  await cacheJumpAnalysis();
  // Merge every package's parameter table into this Common before any copy of it is made.
  createBlockHeader({}, { common });
  createTx({}, { common });
  await createVM({ common });
  return common;
}

/** Sets `common` to the rules of the block with this number and timestamp (a no-op when unchanged). */
export function followHead(common: Common, number: bigint, timestamp: bigint): void {
  const hardfork = common.getHardforkBy({ blockNumber: number, timestamp });
  if (hardfork !== common.hardfork()) common.setHardfork(hardfork);
}

/** A blob schedule entry of a geth genesis (`config.blobSchedule.<fork>`). */
interface BlobScheduleEntry {
  readonly target: number;
  readonly max: number;
}

/**
 * The Common of a geth-format genesis, as `createCommonFromGethGenesis` builds it, with one fix:
 * @ethereumjs/common 10.1.3 turns each `blobSchedule` entry into a custom hardfork whose parameters
 * are only `targetBlobGasPerBlock`, `maxBlobGasPerBlock` and `blobGasPriceUpdateFraction`, dropping
 * the `target` and `max` (blobs per block) that it reads for every fork from BPO1 on
 * (`getBlobGasSchedule`). Without them a BPO fork's blob limits are missing or, when an earlier
 * table supplies them, wrong. They are put back here from the genesis itself.
 */
export function commonFromGethGenesis(genesis: GethGenesis, name: string): Common {
  const params = parseGethGenesis(genesis as unknown as EthereumjsGethGenesis, name);
  const schedule = genesis.config.blobSchedule as Record<string, BlobScheduleEntry> | undefined;
  for (const [fork, entry] of Object.entries(schedule ?? {})) {
    const custom = params.customHardforks?.[fork];
    if (custom) custom.params = { ...custom.params, target: entry.target, max: entry.max };
  }
  return new Common({
    chain: { ...params, name: params.name ?? "custom" } as unknown as ConstructorParameters<
      typeof Common
    >[0]["chain"],
    ...(params.hardfork === undefined ? {} : { hardfork: params.hardfork }),
    customCrypto: { ...nativeCrypto(), kzg },
  });
}

/**
 * Every @ethereumjs transaction, header, EVM and VM constructor copies the Common and calls
 * `updateParams` with its package's constant parameter table, which deep-copies the table and rebuilds
 * the whole parameter cache: milliseconds per transaction, and blocks re-create all their transactions.
 * Copies share the parameter store with the Common they come from. Here a table seen for the first
 * time is merged into the copy and into the root Common; later merges of a known table are skipped.
 * Once every table has been seen (createChainCommon makes sure of it), every copy has the full cache.
 */
function memoizeParamUpdates(root: Common): void {
  const update = root.updateParams;
  const merged = new WeakSet<object>();
  root.updateParams = function (this: Common, params) {
    if (merged.has(params)) return;
    merged.add(params);
    update.call(root, params);
    if (this !== root) update.call(this, params);
  };
}
