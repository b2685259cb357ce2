/**
 * Raised when a block fails consensus verification; the message says why. `kind` tells a bad seal or
 * slot (`seal`) from a header that re-execution does not reproduce (`execution`).
 */
export class ConsensusError extends Error {
  constructor(
    readonly blockNumber: bigint,
    readonly reason: string,
    readonly kind: "seal" | "execution" = "seal",
  ) {
    super(`block ${blockNumber} rejected: ${reason}`);
  }
}

/** Raised when this node holds no online key among the validators that may seal a block. */
export class NoProposerError extends Error {
  constructor(blockNumber: bigint, order: readonly string[]) {
    super(
      `no validator this node seals for may propose block ${blockNumber} (active set: ${order.join(", ") || "empty"})`,
    );
  }
}

/** Raised when this node's validator may seal the next block only as a fallback whose timeout has not passed yet. */
export class NotYourTurnError extends Error {
  constructor(
    blockNumber: bigint,
    readonly notBefore: bigint,
  ) {
    super(`block ${blockNumber} is not this validator's to seal before ${notBefore}`);
  }
}
