/**
 * A block (or the file holding it) that cannot be imported. `blockNumber` names the offending block
 * when it could be decoded; the message always says which block and why, and nothing of that block
 * has been written.
 */
export class ImportError extends Error {
  constructor(
    readonly reason: string,
    readonly blockNumber?: bigint,
  ) {
    super(blockNumber === undefined ? reason : `block ${blockNumber}: ${reason}`);
    this.name = "ImportError";
  }
}

/** A datadir that cannot be initialised from a genesis file (bad file, or another chain already there). */
export class InitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InitError";
  }
}
