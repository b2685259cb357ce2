import { toData, toQuantity } from "@strata/protocol";
import { defineMethod } from "../../registry.js";

/** Chain identity and node status. */
export const chainInfoMethods = {
  eth_chainId: defineMethod({
    params: [],
    required: 0,
    handler: (_, services) => toQuantity(services.config.network.chainId),
  }),
  eth_blockNumber: defineMethod({
    params: [],
    required: 0,
    handler: (_, services) => toQuantity(services.chain.head.header.number),
  }),
  eth_syncing: defineMethod({ params: [], required: 0, handler: () => false }),
  eth_mining: defineMethod({
    params: [],
    required: 0,
    handler: (_, services) => services.config.mining.mode !== "manual",
  }),
  eth_hashrate: defineMethod({ params: [], required: 0, handler: () => "0x0" }),
  eth_coinbase: defineMethod({
    params: [],
    required: 0,
    handler: (_, services) => toData(services.chain.head.header.coinbase.bytes),
  }),
  eth_accounts: defineMethod({
    params: [],
    required: 0,
    handler: (_, services) => [...services.devAccounts.keys()],
  }),
};
