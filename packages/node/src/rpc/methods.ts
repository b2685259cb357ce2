import { devMethods } from "./namespaces/dev.js";
import { blockMethods } from "./namespaces/eth/blocks.js";
import { chainInfoMethods } from "./namespaces/eth/chain-info.js";
import { executeMethods } from "./namespaces/eth/execute.js";
import { feeMethods } from "./namespaces/eth/fees.js";
import { filterMethods } from "./namespaces/eth/filters.js";
import { logMethods } from "./namespaces/eth/logs.js";
import { stateMethods } from "./namespaces/eth/state.js";
import { subscriptionMethods } from "./namespaces/eth/subscribe.js";
import { transactionMethods } from "./namespaces/eth/transactions.js";
import { netMethods, web3Methods } from "./namespaces/net.js";
import { MethodRegistry } from "./registry.js";

/** The registry of every method the node serves. */
export function createMethodRegistry(): MethodRegistry {
  return new MethodRegistry()
    .register(chainInfoMethods)
    .register(stateMethods)
    .register(blockMethods)
    .register(transactionMethods)
    .register(executeMethods)
    .register(feeMethods)
    .register(logMethods)
    .register(filterMethods)
    .register(subscriptionMethods)
    .register(netMethods)
    .register(web3Methods)
    .register(devMethods);
}
