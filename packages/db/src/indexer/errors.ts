/** The stored progress is not where a write expected it: another indexer writes the same database. */
export class IndexerStateConflictError extends Error {
  constructor(expected: bigint, block: bigint) {
    super(
      `indexer state moved: expected block ${expected} to be the last indexed before writing ${block} (is another indexer writing this database?)`,
    );
    this.name = "IndexerStateConflictError";
  }
}

/** The database already indexes a different chain than the node the indexer follows. */
export class ChainIdMismatchError extends Error {
  constructor(stored: bigint, node: bigint) {
    super(`database indexes chain id ${stored} but the node serves chain id ${node}; use another database`);
    this.name = "ChainIdMismatchError";
  }
}
