import { type Common, createCommonFromGethGenesis } from "@ethereumjs/common";
import type { NetworkFile } from "../config/network.js";
import { nativeCrypto } from "../crypto/native-crypto.js";

/**
 * Builds the @ethereumjs Common of a network from its geth-format genesis, with native sender
 * recovery, set to the rules in force at genesis (every fork of the shipped networks starts at 0).
 */
export function createChainCommon(network: NetworkFile): Common {
  const common = createCommonFromGethGenesis(
    network.genesis as Parameters<typeof createCommonFromGethGenesis>[0],
    {
      chain: network.name,
      customCrypto: nativeCrypto(),
    },
  );
  common.setHardforkBy({ blockNumber: 0n, timestamp: BigInt(network.genesis.timestamp) });
  return common;
}
