export { BlockFetcher, BlockUnavailableError } from "./block-fetcher.js";
export { decodeTransfer, probeErc20, TRANSFER_TOPIC } from "./erc20.js";
export type { GrowingStructure } from "./growing-structure.js";
export { wsUrlOf } from "./head-subscription.js";
export { type BackfillProgress, Indexer, type IndexerOptions, type IndexerStatus } from "./indexer.js";
export {
  createIndexerMetrics,
  type IndexerMetricsOptions,
  type MetricsServer,
  serveMetrics,
} from "./indexer-metrics.js";
export { isMethodNotFound, NodeUnreachableError, RpcClient } from "./rpc-client.js";
