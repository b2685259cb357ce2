import {
  encodeError,
  isRejected,
  LimitExceededError,
  type ParsedBody,
  type RpcError,
  type RpcRequest,
} from "@strata/protocol";

/** Methods that install a polling filter on the node. */
const INSTALLS: ReadonlySet<string> = new Set([
  "eth_newFilter",
  "eth_newBlockFilter",
  "eth_newPendingTransactionFilter",
]);
/** Methods that poll a filter, which keeps it alive on the node. */
const POLLS: ReadonlySet<string> = new Set(["eth_getFilterChanges", "eth_getFilterLogs"]);
const UNINSTALL = "eth_uninstallFilter";

/** A node drops a filter not polled for this long (its default, DECISIONS.md): so does the count here. */
export const FILTER_IDLE_MS = 5 * 60_000;
/** Most filters held for all callers together: a node's own total cap (it would refuse more anyway). */
export const MAX_FILTERS = 10_000;
/** Longest time between two sweeps of every caller's filters. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * -32005 for a caller that already holds its most filters, or when all callers together do (the
 * node's errors for its own caps).
 */
export class TooManyFiltersError extends LimitExceededError {
  constructor(max: number, scope: "caller" | "gateway") {
    super(scope === "caller" ? "too many filters for this caller" : "too many filters", {
      limit: scope === "caller" ? "filtersPerCaller" : "filters",
      max,
    });
  }
}

/** The filters a body may install, held for its caller until its answer names them. */
interface FilterReservation {
  readonly subject: string;
  readonly installs: readonly RpcRequest[];
}

/**
 * The polling filters each caller (key or IP, as the limits count it) installed through this gateway,
 * capped per caller. Behind a gateway the node sees every client at the gateway's address, so its own
 * per-address cap cannot tell one client from another: this count can. A body whose installs would
 * pass the cap is refused whole (as a batch over a rate limit is); ids named by the answers are kept
 * until uninstalled or, like the node does, dropped after {@link FILTER_IDLE_MS} without a poll. An
 * install sent as a notification (no answer, so no id) holds its place for that long too.
 */
export class FilterQuota {
  /** Caller -> its filter ids (or placeholders) -> when each was last installed or polled. */
  private readonly held = new Map<string, Map<string, number>>();
  /** Filter id -> its caller. */
  private readonly owners = new Map<string, string>();
  /** Places taken by bodies still waiting for their answers, per caller. */
  private readonly pending = new Map<string, number>();
  private pendingTotal = 0;
  private lastSweep: number;
  private placeholders = 0;

  constructor(
    private readonly maxPerCaller: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.lastSweep = clock();
  }

  /** Filters held for all callers (answered installs and placeholders). */
  get size(): number {
    return this.owners.size;
  }

  /**
   * Looks at a body of `subject` before it goes to the node: polls keep their filters alive,
   * uninstalls free their places. Resolves the body's installs to a reservation, or to a refusal when
   * they would take the caller past its cap; undefined when the body installs nothing.
   */
  private admit(subject: string, parsed: ParsedBody): FilterReservation | TooManyFiltersError | undefined {
    const entries = parsed.kind === "batch" ? parsed.entries : parsed.kind === "single" ? [parsed.entry] : [];
    const now = this.clock();
    if (now - this.lastSweep >= SWEEP_INTERVAL_MS) this.sweep(now);
    const installs: RpcRequest[] = [];
    for (const entry of entries) {
      if (isRejected(entry)) continue;
      const id = typeof entry.params[0] === "string" ? entry.params[0].toLowerCase() : undefined;
      if (INSTALLS.has(entry.method)) installs.push(entry);
      else if (id !== undefined && this.owners.get(id) === subject) {
        if (POLLS.has(entry.method)) this.held.get(subject)!.set(id, now);
        else if (entry.method === UNINSTALL) this.forget(subject, id);
      }
    }
    if (installs.length === 0) return undefined;
    const mine = this.held.get(subject);
    if (mine !== undefined) this.sweepCaller(subject, mine, now);
    const taken = (this.held.get(subject)?.size ?? 0) + (this.pending.get(subject) ?? 0);
    if (taken + installs.length > this.maxPerCaller)
      return new TooManyFiltersError(this.maxPerCaller, "caller");
    if (this.owners.size + this.pendingTotal + installs.length > MAX_FILTERS) {
      this.sweep(now);
      if (this.owners.size + this.pendingTotal + installs.length > MAX_FILTERS)
        return new TooManyFiltersError(MAX_FILTERS, "gateway");
    }
    this.pending.set(subject, (this.pending.get(subject) ?? 0) + installs.length);
    this.pendingTotal += installs.length;
    return { subject, installs };
  }

  /** Records the filters the answer (`body`: one answer or an array of them) says were installed. */
  private settle(reservation: FilterReservation, body: string | undefined): void {
    const { subject, installs } = reservation;
    const left = (this.pending.get(subject) ?? 0) - installs.length;
    if (left > 0) this.pending.set(subject, left);
    else this.pending.delete(subject);
    this.pendingTotal -= installs.length;
    const answers = parseAnswers(body);
    const now = this.clock();
    for (const install of installs) {
      if (install.notification) {
        this.keep(subject, `placeholder:${this.placeholders++}`, now);
        continue;
      }
      const answer = answers.find((a) => JSON.stringify(a.id) === JSON.stringify(JSON.parse(install.idJson)));
      if (typeof answer?.result === "string") this.keep(subject, answer.result.toLowerCase(), now);
    }
  }

  /**
   * `answer()` of a body of `subject`, under its cap of filters: the refusal (under every entry's id)
   * when the body's installs do not fit, else the answer, whose installed filters are then counted.
   */
  async guard<A extends { readonly body: string | undefined }>(
    subject: string,
    parsed: ParsedBody,
    answer: () => Promise<A>,
  ): Promise<A | { readonly body: string; readonly status: 200 }> {
    const reservation = this.admit(subject, parsed);
    if (reservation === undefined) return answer();
    if (reservation instanceof TooManyFiltersError)
      return { body: refusalOf(parsed, reservation), status: 200 };
    let answered: A | undefined;
    try {
      answered = await answer();
      return answered;
    } finally {
      this.settle(reservation, answered?.body);
    }
  }

  private keep(subject: string, id: string, now: number): void {
    let mine = this.held.get(subject);
    if (mine === undefined) {
      mine = new Map();
      this.held.set(subject, mine);
    }
    mine.set(id, now);
    this.owners.set(id, subject);
  }

  private forget(subject: string, id: string): void {
    const mine = this.held.get(subject);
    mine?.delete(id);
    this.owners.delete(id);
    if (mine?.size === 0) this.held.delete(subject);
  }

  private sweepCaller(subject: string, mine: Map<string, number>, now: number): void {
    for (const [id, used] of mine) if (now - used >= FILTER_IDLE_MS) this.forget(subject, id);
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [subject, mine] of this.held) this.sweepCaller(subject, mine, now);
  }
}

/** `error` under the id of every entry of `parsed` (an array for a batch). */
function refusalOf(parsed: ParsedBody, error: RpcError): string {
  if (parsed.kind === "batch")
    return `[${parsed.entries.map((e) => encodeError(e.idJson, error)).join(",")}]`;
  return encodeError(parsed.kind === "single" ? parsed.entry.idJson : "null", error);
}

interface Answer {
  readonly id?: unknown;
  readonly result?: unknown;
}

function parseAnswers(body: string | undefined): readonly Answer[] {
  if (body === undefined) return [];
  try {
    const parsed = JSON.parse(body) as unknown;
    const list = Array.isArray(parsed) ? parsed : [parsed];
    return list.filter((a): a is Answer => typeof a === "object" && a !== null);
  } catch {
    return [];
  }
}
