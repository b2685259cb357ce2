import { toData, toQuantity } from "@strata/protocol";
import { chainConfigResponse, type GenesisConfig } from "../../../config/fork-config.js";
import { defineMethods } from "../../registry.js";
import type { RpcServices } from "../../services.js";

/** One kind of history in `eth_capabilities`: this archive node keeps every kind from genesis on. */
const FROM_GENESIS = { disabled: false, oldestBlock: "0x0" } as const;

function chainDescription(services: RpcServices) {
  const { chain, config } = services;
  return {
    config: config.network.genesis.config as GenesisConfig,
    chainId: BigInt(config.network.chainId),
    genesisHash: chain.genesis.hash(),
    genesisTime: chain.genesis.header.timestamp,
    headTime: chain.head.header.timestamp,
  };
}

/** Chain configuration (EIP-7910), data availability, and the next block's base fee. */
export const configMethods = defineMethods({
  eth_config: (_, services) => chainConfigResponse(chainDescription(services)),
  eth_capabilities: (_, services) => {
    const head = services.chain.head;
    return {
      head: { number: toQuantity(head.header.number), hash: toData(head.hash()) },
      state: FROM_GENESIS,
      tx: FROM_GENESIS,
      logs: FROM_GENESIS,
      receipts: FROM_GENESIS,
      blocks: FROM_GENESIS,
      stateproofs: FROM_GENESIS,
    };
  },
  eth_baseFee: (_, services) => {
    const head = services.chain.head.header;
    const common = services.chain.common;
    const next = common.getHardforkBy({ blockNumber: head.number + 1n, timestamp: head.timestamp });
    if (!common.hardforkGteHardfork(next, "london")) return null;
    // The first London block starts from the initial base fee (EIP-1559).
    if (head.baseFeePerGas === undefined) return toQuantity(common.paramByHardfork("initialBaseFee", next));
    return toQuantity(head.calcNextBaseFee());
  },
});
