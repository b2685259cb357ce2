import { toData, toQuantity } from "@strata/protocol";
import { defineMethods } from "../../registry.js";

/** Chain identity and node status. */
export const chainInfoMethods = defineMethods({
  eth_chainId: (_, services) => toQuantity(services.config.network.chainId),
  eth_blockNumber: (_, services) => toQuantity(services.chain.head.header.number),
  eth_syncing: () => false,
  eth_mining: (_, services) => services.config.mining.mode !== "manual",
  eth_hashrate: () => "0x0",
  eth_coinbase: (_, services) => toData(services.chain.head.header.coinbase.bytes),
  eth_accounts: (_, services) => [...services.devAccounts.keys()],
});
