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
export { NodeConfigError } from "./config/node-config-schema.js";
export type { FeedSeries } from "./config/reporter-settings.js";
export { devValidatorKeys, ValidatorSettingsError } from "./consensus/create-engine.js";
export { addressOfPrivateKey } from "./consensus/seal.js";
export { nativeKeccakAvailable } from "./crypto/keccak.js";
export { nativeCryptoAvailable } from "./crypto/native-crypto.js";
export { type DevAccount, deriveDevAccounts, privateKeyHex } from "./dev-accounts.js";
export { datadirNetwork, networkFromGenesis, readDatadirNetwork } from "./import/datadir-network.js";
export { ImportError, InitError } from "./import/errors.js";
export { type ImportProgress, type ImportSummary, importChainFile } from "./import/import-chain.js";
export { type InitResult, initDatadir } from "./import/init-datadir.js";
export { createLogger } from "./logger.js";
export { loadP2PIdentity, type P2PIdentity } from "./network/identity.js";
export { CLIENT_VERSION, createNode, type NodeOptions, type NodeStatus, type StrataNode } from "./node.js";
export { FeedError, loadFeedFile } from "./reporter/feed.js";
export { PriceReporter, type ReporterOptions } from "./reporter/price-reporter.js";
export {
  AccessCheckUnavailableError,
  type Caller,
  type GateDecision,
  type RequestGate,
} from "./rpc/server/access.js";
