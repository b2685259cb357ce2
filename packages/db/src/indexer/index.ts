export { ChainIdMismatchError, IndexerStateConflictError } from "./errors.js";
export * from "./reads.js";
export type * from "./rows.js";
export {
  initIndexerState,
  insertPredictions,
  readIndexerState,
  replaceDePINNodes,
  rewindTo,
  storedBlockHash,
  writeBlock,
} from "./writes.js";
