export { Chain, type ChainEvents, type NewHead } from "./chain/chain.js";
export { BUILTIN_NETWORKS, loadNetwork, type NetworkFile, parseNetwork } from "./config/network.js";
export {
  createNodeConfig,
  DEFAULTS,
  type MiningMode,
  type NodeConfig,
  type NodeConfigOverrides,
  testConfig,
} from "./config/node-config.js";
export { nativeCryptoAvailable, nativeKeccakAvailable } from "./crypto/native-crypto.js";
export { type DevAccount, deriveDevAccounts, privateKeyHex } from "./dev-accounts.js";
export { CLIENT_VERSION, createNode, type NodeStatus, type StrataNode } from "./node.js";
