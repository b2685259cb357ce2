import { debugRawMethods } from "./namespaces/debug/raw.js";
import { debugTraceMethods } from "./namespaces/debug/trace.js";
import { devMethods } from "./namespaces/dev.js";
import { blockAccessListMethods } from "./namespaces/eth/block-access-list.js";
import { blockMethods } from "./namespaces/eth/blocks.js";
import { chainInfoMethods } from "./namespaces/eth/chain-info.js";
import { configMethods } from "./namespaces/eth/config.js";
import { executeMethods } from "./namespaces/eth/execute.js";
import { feeMethods } from "./namespaces/eth/fees.js";
import { filterMethods } from "./namespaces/eth/filters.js";
import { headerMethods } from "./namespaces/eth/headers.js";
import { logMethods } from "./namespaces/eth/logs.js";
import { proofMethods } from "./namespaces/eth/proof.js";
import { signMethods } from "./namespaces/eth/sign.js";
import { simulateMethods } from "./namespaces/eth/simulate.js";
import { stateMethods } from "./namespaces/eth/state.js";
import { subscriptionMethods } from "./namespaces/eth/subscribe.js";
import { transactionMethods } from "./namespaces/eth/transactions.js";
import { netMethods, testPeerMethods, web3Methods } from "./namespaces/net.js";
import { otsMethods } from "./namespaces/ots/methods.js";
import { rpcDiscoverMethods } from "./namespaces/rpc-discover.js";
import { depinMethods } from "./namespaces/svc/depin.js";
import { predictionMethods } from "./namespaces/svc/prediction.js";
import { stakingMethods } from "./namespaces/svc/staking.js";
import { testingMethods } from "./namespaces/testing.js";
import { txpoolMethods } from "./namespaces/txpool.js";
import { MethodRegistry } from "./registry.js";

/** The registry of every method the node serves. */
export function createMethodRegistry(): MethodRegistry {
  const registry = new MethodRegistry()
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
    .register(testPeerMethods)
    .register(web3Methods)
    .register(devMethods)
    .register(proofMethods)
    .register(simulateMethods)
    .register(configMethods)
    .register(signMethods)
    .register(blockAccessListMethods)
    .register(headerMethods)
    .register(debugRawMethods)
    .register(debugTraceMethods)
    .register(otsMethods)
    .register(txpoolMethods)
    .register(depinMethods)
    .register(predictionMethods)
    .register(stakingMethods)
    .register(testingMethods);
  return registry.register(rpcDiscoverMethods(registry));
}
