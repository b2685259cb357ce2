import { encodeError } from "./envelope.js";
import { LimitExceededError } from "./errors.js";

/** Room set aside per batch entry for a -32005 answer in place of its own (besides its id). */
const REFUSAL_BYTES = 160;

/** An entry of a batch as the budget sees it: its id as JSON text, and whether it wants an answer. */
export interface BudgetedEntry {
  readonly idJson: string;
  readonly notification?: boolean;
}

/**
 * Keeps a batch's answer under `maxBytes` while it is built (node and gateway alike): each answer is
 * measured as it arrives; one that does not fit the remaining budget, and every later one, becomes
 * -32005 `response exceeds N bytes` (`data: {limit: "responseBytes", max}`). Room for those small
 * refusals is set aside first, so the joined answer never exceeds `maxBytes` (unless the refusals of
 * a batch alone do). Once {@link spent}, callers should not even run the remaining entries.
 */
export class BatchBudget {
  #remaining: number;
  readonly #error: LimitExceededError;

  constructor(maxBytes: number, entries: readonly BudgetedEntry[]) {
    this.#error = new LimitExceededError(`response exceeds ${maxBytes} bytes`, {
      limit: "responseBytes",
      max: maxBytes,
    });
    let remaining = maxBytes - 2;
    for (const entry of entries) remaining -= REFUSAL_BYTES + entry.idJson.length;
    this.#remaining = remaining;
  }

  /** Whether the budget is used up: every further entry is refused. */
  get spent(): boolean {
    return this.#remaining < 0;
  }

  /** `answer` when it fits (its size is then spent), else the entry's refusal; notifications stay unanswered. */
  fit(entry: BudgetedEntry, answer: string | undefined): string | undefined {
    if (answer === undefined) return undefined;
    const size = Buffer.byteLength(answer) + 1;
    if (this.#remaining < size) {
      this.#remaining = -1;
      return this.refuse(entry);
    }
    this.#remaining -= size;
    return answer;
  }

  /** The -32005 answer of an entry refused for lack of room (none for a notification). */
  refuse(entry: BudgetedEntry): string | undefined {
    return entry.notification === true ? undefined : encodeError(entry.idJson, this.#error);
  }
}
