import type { TypedTransaction } from "@ethereumjs/tx";
import { type Hex, type LogFilter, type RpcLog, type RpcTransaction, toData } from "@strata/protocol";
import type { ChainEvents, NewHead } from "../../chain/chain.js";
import type { EventBus } from "../../chain/event-bus.js";
import { formatLogsOf } from "../../chain/log-format.js";
import { bloomMayMatch, type LogCriteria, matchesLog } from "../../chain/log-query.js";
import { FilterNotFoundError, TooManyFiltersError } from "../../errors/domain-errors.js";
import type { BoundedStructure } from "../../metrics/bounded-structure.js";
import { formatTransaction } from "../format/transaction.js";
import { newRpcId } from "../rpc-id.js";
import { BoundedBuffer } from "./bounded-buffer.js";

/** Default limits of a {@link FilterManager}. */
export const FILTER_DEFAULTS = {
  /** A filter not polled for this long is removed (DECISIONS.md: 5 minutes). */
  timeoutMs: 300_000,
  /** Most filters installed at once, over all clients. */
  maxFilters: 10_000,
  /** Most filters one caller (a client address) holds at once. */
  maxFiltersPerCaller: 256,
  /** Most results one filter holds between two polls; beyond it the oldest are dropped. */
  maxChanges: 10_000,
  /** Longest time between two sweeps for expired filters. */
  maxSweepIntervalMs: 60_000,
} as const;

/** Limits of a {@link FilterManager}; each defaults to {@link FILTER_DEFAULTS}. */
export interface FilterManagerOptions {
  /** A filter not polled for this long is removed. */
  readonly filterTimeoutMs?: number;
  /** Most filters installed at once; installing one more fails with {@link TooManyFiltersError}. */
  readonly maxFilters?: number;
  /** Most filters one caller holds at once; one more fails with {@link TooManyFiltersError}. */
  readonly maxFiltersPerCaller?: number;
  /** Most results a filter holds between two polls. */
  readonly maxChanges?: number;
  /** How often expired filters are swept (default: the timeout, at most one minute). */
  readonly sweepIntervalMs?: number;
}

/** What a log filter collects: its criteria, its block bounds and the filter object it came from. */
export interface LogFilterSpec {
  /** The filter object as `eth_newFilter` received it; `eth_getFilterLogs` re-runs it. */
  readonly query: LogFilter;
  readonly criteria: LogCriteria;
  /** Logs of blocks below this number are not collected; absent: no lower bound. */
  readonly fromBlock?: bigint;
  /** Logs of blocks above this number are not collected; absent: no upper bound. */
  readonly toBlock?: bigint;
  /** Only logs of the block with this hash are collected. */
  readonly blockHash?: Hex;
}

/** The kinds of filter: `eth_newFilter`, `eth_newBlockFilter`, `eth_newPendingTransactionFilter`. */
export type FilterKind = "logs" | "blocks" | "pendingTransactions";

/** One result of `eth_getFilterChanges`: a log, a block hash, a transaction hash or a full transaction. */
export type FilterChange = RpcLog | Hex | RpcTransaction;

interface FilterState<K extends FilterKind, C extends FilterChange> {
  readonly id: string;
  readonly kind: K;
  readonly changes: BoundedBuffer<C>;
  /** Who installed it (see {@link FilterManager}); counted against that caller's cap. */
  readonly owner: string | undefined;
  lastPolledAt: number;
}

interface LogsFilter extends FilterState<"logs", RpcLog> {
  readonly spec: LogFilterSpec;
}

interface PendingTransactionsFilter extends FilterState<"pendingTransactions", Hex | RpcTransaction> {
  readonly fullTransactions: boolean;
}

type Filter = LogsFilter | FilterState<"blocks", Hex> | PendingTransactionsFilter;

/**
 * The polling filters of `eth_newFilter` and friends. Driven by the chain's event bus, never by
 * reading storage: each new head appends its hash to block filters and its matching logs (in block
 * order) to log filters, a reorg (or a dev rewind) the logs of the blocks it dropped with `removed:
 * true`; each pending transaction appends its hash to pending-transaction filters.
 * `changes` hands out and resets what accumulated since the last poll. A filter not polled within the
 * timeout is removed by a periodic sweep (and is never found once its time is up). Installs are
 * capped over all callers and per caller (`owner`: the transport's caller, see `RpcContext.caller`).
 */
export class FilterManager {
  private readonly filters = new Map<string, Filter>();
  private readonly logFilters = new Set<LogsFilter>();
  private readonly blockFilters = new Set<FilterState<"blocks", Hex>>();
  private readonly pendingFilters = new Set<PendingTransactionsFilter>();
  private readonly timeoutMs: number;
  private readonly maxFilters: number;
  private readonly maxFiltersPerCaller: number;
  private readonly perCaller = new Map<string, number>();
  private readonly maxChanges: number;
  private readonly unsubscribe: (() => void)[];
  private readonly sweeper: NodeJS.Timeout;

  constructor(events: EventBus<ChainEvents>, options: FilterManagerOptions = {}) {
    this.timeoutMs = options.filterTimeoutMs ?? FILTER_DEFAULTS.timeoutMs;
    this.maxFilters = options.maxFilters ?? FILTER_DEFAULTS.maxFilters;
    this.maxChanges = options.maxChanges ?? FILTER_DEFAULTS.maxChanges;
    this.maxFiltersPerCaller = options.maxFiltersPerCaller ?? FILTER_DEFAULTS.maxFiltersPerCaller;
    const sweepIntervalMs =
      options.sweepIntervalMs ?? Math.min(this.timeoutMs, FILTER_DEFAULTS.maxSweepIntervalMs);
    this.unsubscribe = [
      events.on("newHead", (head) => this.onNewHead(head)),
      events.on("reorg", ({ removed }) => {
        // Logs of dropped blocks are collected again with removed: true, newest block first (as geth).
        for (const head of [...removed].reverse()) this.collectLogs(head, true);
      }),
      events.on("pendingTransaction", (tx) => this.onPendingTransaction(tx)),
    ];
    this.sweeper = setInterval(() => this.sweep(), sweepIntervalMs);
    this.sweeper.unref();
  }

  /** Number of installed filters (expired ones count until the next sweep). */
  get size(): number {
    return this.filters.size;
  }

  /** Installed filters, and the most changes any one of them holds for its next poll, for the metrics. */
  boundedStructures(): BoundedStructure[] {
    const largestBacklog = () => {
      let largest = 0;
      for (const filter of this.filters.values()) largest = Math.max(largest, filter.changes.size);
      return largest;
    };
    return [
      { name: "filters", unit: "entries", bound: this.maxFilters, size: () => this.filters.size },
      { name: "filter_changes", unit: "entries", bound: this.maxChanges, size: largestBacklog },
    ];
  }

  /** Installs a log filter for `owner`; returns its id. */
  newLogFilter(spec: LogFilterSpec, owner?: string): string {
    const filter: LogsFilter = { ...this.base<"logs", RpcLog>("logs", owner), spec };
    this.install(filter);
    this.logFilters.add(filter);
    return filter.id;
  }

  /** Installs a filter collecting the hashes of new blocks for `owner`; returns its id. */
  newBlockFilter(owner?: string): string {
    const filter = this.base<"blocks", Hex>("blocks", owner);
    this.install(filter);
    this.blockFilters.add(filter);
    return filter.id;
  }

  /** Installs a filter collecting new pending transactions (hashes, or full objects) for `owner`; returns its id. */
  newPendingTransactionFilter(fullTransactions = false, owner?: string): string {
    const filter: PendingTransactionsFilter = {
      ...this.base<"pendingTransactions", Hex | RpcTransaction>("pendingTransactions", owner),
      fullTransactions,
    };
    this.install(filter);
    this.pendingFilters.add(filter);
    return filter.id;
  }

  /** What filter `id` collected since it was last polled, oldest first; counts as a poll. */
  changes(id: string): FilterChange[] {
    return this.poll(id).changes.drain();
  }

  /** The spec of log filter `id`, for re-running its query; counts as a poll. */
  logFilter(id: string): LogFilterSpec {
    const filter = this.poll(id);
    if (filter.kind !== "logs") throw new FilterNotFoundError();
    return filter.spec;
  }

  /** Removes filter `id`; false when there is no such (live) filter. */
  uninstall(id: string): boolean {
    const filter = this.filters.get(id);
    if (!filter) return false;
    this.remove(filter);
    return !this.expired(filter, Date.now());
  }

  /** Removes every filter not polled within the timeout. */
  sweep(): void {
    const now = Date.now();
    for (const filter of this.filters.values()) if (this.expired(filter, now)) this.remove(filter);
  }

  /** Stops listening to the chain and sweeping, and drops every filter. */
  stop(): void {
    clearInterval(this.sweeper);
    for (const off of this.unsubscribe) off();
    this.filters.clear();
    this.perCaller.clear();
    this.logFilters.clear();
    this.blockFilters.clear();
    this.pendingFilters.clear();
  }

  private base<K extends FilterKind, C extends FilterChange>(
    kind: K,
    owner: string | undefined,
  ): FilterState<K, C> {
    return {
      id: newRpcId(),
      kind,
      owner,
      changes: new BoundedBuffer<C>(this.maxChanges),
      lastPolledAt: Date.now(),
    };
  }

  private install(filter: Filter): void {
    if (this.filters.size >= this.maxFilters) this.sweep();
    if (this.filters.size >= this.maxFilters) throw new TooManyFiltersError(this.maxFilters);
    const { owner } = filter;
    if (owner !== undefined) {
      const held = this.perCaller.get(owner) ?? 0;
      if (held >= this.maxFiltersPerCaller) this.sweep();
      const live = this.perCaller.get(owner) ?? 0;
      if (live >= this.maxFiltersPerCaller) throw new TooManyFiltersError(this.maxFiltersPerCaller, "caller");
      this.perCaller.set(owner, live + 1);
    }
    this.filters.set(filter.id, filter);
  }

  private poll(id: string): Filter {
    const filter = this.filters.get(id);
    if (!filter) throw new FilterNotFoundError();
    const now = Date.now();
    if (this.expired(filter, now)) {
      this.remove(filter);
      throw new FilterNotFoundError();
    }
    filter.lastPolledAt = now;
    return filter;
  }

  private expired(filter: Filter, now: number): boolean {
    return now - filter.lastPolledAt >= this.timeoutMs;
  }

  private remove(filter: Filter): void {
    if (!this.filters.delete(filter.id)) return;
    if (filter.owner !== undefined) {
      const left = (this.perCaller.get(filter.owner) ?? 1) - 1;
      if (left > 0) this.perCaller.set(filter.owner, left);
      else this.perCaller.delete(filter.owner);
    }
    if (filter.kind === "logs") this.logFilters.delete(filter);
    else if (filter.kind === "blocks") this.blockFilters.delete(filter);
    else this.pendingFilters.delete(filter);
  }

  private onNewHead(head: NewHead): void {
    const hash = toData(head.block.hash());
    for (const filter of this.blockFilters) filter.changes.push(hash);
    this.collectLogs(head, false);
  }

  /** Appends `head`'s logs to the log filters they match; `removed` marks those of a dropped block. */
  private collectLogs({ block, receipts }: NewHead, removed: boolean): void {
    if (this.logFilters.size === 0 || receipts.every((r) => r.logs.length === 0)) return;
    const hash = toData(block.hash());
    const number = block.header.number;
    const stored = receipts.flatMap((r) => r.logs);
    // Formatted once per block, on first need, and shared by every filter they match.
    let formatted: RpcLog[] | undefined;
    for (const filter of this.logFilters) {
      const { spec } = filter;
      if (spec.fromBlock !== undefined && number < spec.fromBlock) continue;
      if (spec.toBlock !== undefined && number > spec.toBlock) continue;
      if (spec.blockHash !== undefined && spec.blockHash !== hash) continue;
      if (!bloomMayMatch(block, spec.criteria)) continue;
      formatted ??= formatLogsOf(block, receipts).map((log) => (removed ? { ...log, removed: true } : log));
      for (let i = 0; i < stored.length; i++) {
        if (matchesLog(stored[i]!, spec.criteria)) filter.changes.push(formatted[i]!);
      }
    }
  }

  private onPendingTransaction(tx: TypedTransaction): void {
    if (this.pendingFilters.size === 0) return;
    const hash = toData(tx.hash());
    let full: RpcTransaction | undefined;
    for (const filter of this.pendingFilters) {
      if (filter.fullTransactions) {
        full ??= formatTransaction(tx, tx.getSenderAddress().bytes);
        filter.changes.push(full);
      } else {
        filter.changes.push(hash);
      }
    }
  }
}
