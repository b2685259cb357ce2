/** Thrown when a history is too short to forecast from. */
export class InsufficientHistoryError extends Error {
  override readonly name = "InsufficientHistoryError";
  /** Daily closes needed. */
  readonly required: number;
  /** Daily closes given. */
  readonly available: number;

  constructor(required: number, available: number) {
    super(`insufficient price history: ${available} daily closes, at least ${required} required`);
    this.required = required;
    this.available = available;
  }
}
