import type { Block } from "@ethereumjs/block";
import type { TypedTransaction } from "@ethereumjs/tx";
import { Bloom } from "@ethereumjs/vm";
import type { Hex, LogFilter, RpcLog } from "@strata/protocol";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ChainEvents, NewHead } from "../../chain/chain.js";
import { EventBus } from "../../chain/event-bus.js";
import type { LogCriteria } from "../../chain/log-query.js";
import { FilterNotFoundError, TooManyFiltersError } from "../../errors/domain-errors.js";
import type { StoredLog, StoredReceipt } from "../../storage/records.js";
import { BoundedBuffer } from "./bounded-buffer.js";
import { FilterManager, type FilterManagerOptions, type LogFilterSpec } from "./filter-manager.js";

const TIMEOUT = 300_000;

function bytes(fill: number, length: number): Uint8Array {
  return new Uint8Array(length).fill(fill);
}

function hex(value: Uint8Array): Hex {
  return `0x${Buffer.from(value).toString("hex")}`;
}

const TOKEN_A = bytes(0xaa, 20);
const TOKEN_B = bytes(0xbb, 20);
const TRANSFER = bytes(0x01, 32);
const APPROVAL = bytes(0x02, 32);
const ALICE = bytes(0x0a, 32);
const BOB = bytes(0x0b, 32);
const CAROL = bytes(0x0c, 32);

function log(address: Uint8Array, ...topics: Uint8Array[]): StoredLog {
  return { address, topics, data: bytes(0, 32) };
}

/** A block announcement carrying `logsPerTx[i]` as the logs of its i-th transaction. */
function head(number: bigint, logsPerTx: StoredLog[][] = []): NewHead {
  const bloom = new Bloom();
  for (const l of logsPerTx.flat()) {
    bloom.add(l.address);
    for (const t of l.topics) bloom.add(t);
  }
  const hash = bytes(Number(number % 256n), 32);
  const block = {
    hash: () => hash,
    header: { number, timestamp: 1_700_000_000n + number, logsBloom: bloom.bitvector },
    transactions: logsPerTx.map((_, i) => ({ hash: () => bytes(0x80 + i, 32) })),
  } as unknown as Block;
  const receipts = logsPerTx.map(
    (logs, i): StoredReceipt => ({
      type: 2,
      status: 1,
      cumulativeGasUsed: 0n,
      gasUsed: 0n,
      logs,
      sender: bytes(0x11, 20),
      contractAddress: undefined,
      txHash: bytes(0x80 + i, 32),
    }),
  );
  return { block, receipts };
}

function pendingTx(fill: number): TypedTransaction {
  return { hash: () => bytes(fill, 32) } as unknown as TypedTransaction;
}

function spec(criteria: Partial<LogCriteria> = {}, bounds: Partial<LogFilterSpec> = {}): LogFilterSpec {
  const query: LogFilter = {};
  return { query, criteria: { addresses: [], topics: [], ...criteria }, ...bounds };
}

let events: EventBus<ChainEvents>;
let filters: FilterManager;

function manager(options: FilterManagerOptions = {}): FilterManager {
  filters.stop();
  filters = new FilterManager(events, options);
  return filters;
}

beforeEach(() => {
  vi.useFakeTimers();
  events = new EventBus<ChainEvents>();
  filters = new FilterManager(events);
});

afterEach(() => {
  filters.stop();
  vi.useRealTimers();
});

describe("FilterManager", () => {
  it("hands out random ids of 0x and 32 hex characters", () => {
    const ids = [
      filters.newBlockFilter(),
      filters.newPendingTransactionFilter(),
      filters.newLogFilter(spec()),
    ];
    for (let i = 0; i < 200; i++) ids.push(filters.newBlockFilter());
    // 32 hex digits, never a leading zero: the id is also a quantity, as execution-apis types it
    for (const id of ids) expect(id).toMatch(/^0x[1-9a-f][0-9a-f]{31}$/);
    expect(new Set(ids).size).toBe(203);
    expect(filters.size).toBe(203);
  });

  it("collects new block hashes in order and resets them on each poll", () => {
    const id = filters.newBlockFilter();
    expect(filters.changes(id)).toEqual([]);
    events.emit("newHead", head(1n));
    events.emit("newHead", head(2n));
    expect(filters.changes(id)).toEqual([hex(bytes(1, 32)), hex(bytes(2, 32))]);
    expect(filters.changes(id)).toEqual([]);
    events.emit("newHead", head(3n));
    expect(filters.changes(id)).toEqual([hex(bytes(3, 32))]);
  });

  it("collects pending transaction hashes; block filters ignore them and vice versa", () => {
    const pending = filters.newPendingTransactionFilter();
    const blocks = filters.newBlockFilter();
    events.emit("pendingTransaction", pendingTx(0x51));
    events.emit("pendingTransaction", pendingTx(0x52));
    events.emit("newHead", head(1n));
    expect(filters.changes(pending)).toEqual([hex(bytes(0x51, 32)), hex(bytes(0x52, 32))]);
    expect(filters.changes(blocks)).toEqual([hex(bytes(1, 32))]);
  });

  it("collects only logs created after the filter", () => {
    events.emit("newHead", head(1n, [[log(TOKEN_A, TRANSFER)]]));
    const id = filters.newLogFilter(spec());
    expect(filters.changes(id)).toEqual([]);
    events.emit("newHead", head(2n, [[log(TOKEN_A, TRANSFER)]]));
    expect(filters.changes(id)).toHaveLength(1);
  });

  it("gives a reorganisation's dropped logs again with removed: true, newest block first", () => {
    const id = filters.newLogFilter(spec({ addresses: [hex(TOKEN_A)] }));
    const dropped = [
      head(5n, [[log(TOKEN_A, TRANSFER)]]),
      head(6n, [[log(TOKEN_A, APPROVAL), log(TOKEN_B, TRANSFER)]]),
    ];
    for (const h of dropped) events.emit("newHead", h);
    expect(filters.changes(id)).toHaveLength(2);
    events.emit("reorg", { removed: dropped, added: [head(5n)] });
    const logs = filters.changes(id) as RpcLog[];
    expect(logs.map((l) => [l.blockNumber, l.topics[0], l.removed])).toEqual([
      ["0x6", hex(APPROVAL), true],
      ["0x5", hex(TRANSFER), true],
    ]);
  });

  it("collects matching logs in block order with block-wide log indexes", () => {
    const all = filters.newLogFilter(spec());
    const tokenB = filters.newLogFilter(spec({ addresses: [hex(TOKEN_B)] }));
    const toBobOrCarol = filters.newLogFilter(
      spec({ topics: [[hex(TRANSFER)], null, [hex(BOB), hex(CAROL)]] }),
    );
    events.emit(
      "newHead",
      head(5n, [
        [log(TOKEN_A, TRANSFER, ALICE, BOB), log(TOKEN_B, APPROVAL, ALICE, BOB)],
        [log(TOKEN_B, TRANSFER, BOB, ALICE)],
      ]),
    );
    events.emit("newHead", head(6n, [[log(TOKEN_B, TRANSFER, ALICE, CAROL)]]));

    const logs = filters.changes(all) as RpcLog[];
    expect(logs.map((l) => [l.blockNumber, l.transactionIndex, l.logIndex])).toEqual([
      ["0x5", "0x0", "0x0"],
      ["0x5", "0x0", "0x1"],
      ["0x5", "0x1", "0x2"],
      ["0x6", "0x0", "0x0"],
    ]);
    expect(logs.every((l) => l.removed === false)).toBe(true);
    expect(logs[0]).toMatchObject({
      address: hex(TOKEN_A),
      topics: [hex(TRANSFER), hex(ALICE), hex(BOB)],
      blockHash: hex(bytes(5, 32)),
      transactionHash: hex(bytes(0x80, 32)),
    });

    const fromB = filters.changes(tokenB) as RpcLog[];
    expect(fromB.map((l) => [l.blockNumber, l.logIndex])).toEqual([
      ["0x5", "0x1"],
      ["0x5", "0x2"],
      ["0x6", "0x0"],
    ]);
    const transfers = filters.changes(toBobOrCarol) as RpcLog[];
    expect(transfers.map((l) => [l.blockNumber, l.logIndex])).toEqual([
      ["0x5", "0x0"],
      ["0x6", "0x0"],
    ]);
  });

  it("honours numeric block bounds and block hashes", () => {
    const bounded = filters.newLogFilter(spec({}, { fromBlock: 3n, toBlock: 4n }));
    const byHash = filters.newLogFilter(spec({}, { blockHash: hex(bytes(4, 32)) }));
    for (let n = 2n; n <= 6n; n++) events.emit("newHead", head(n, [[log(TOKEN_A, TRANSFER)]]));
    expect((filters.changes(bounded) as RpcLog[]).map((l) => l.blockNumber)).toEqual(["0x3", "0x4"]);
    expect((filters.changes(byHash) as RpcLog[]).map((l) => l.blockNumber)).toEqual(["0x4"]);
  });

  it("answers FilterNotFoundError for unknown ids, and for the log query of a non-log filter", () => {
    expect(() => filters.changes("0x1234")).toThrow(FilterNotFoundError);
    expect(() => filters.changes("0x1234")).toThrow("filter not found");
    const blocks = filters.newBlockFilter();
    expect(() => filters.logFilter(blocks)).toThrow(FilterNotFoundError);
    const logs = filters.newLogFilter(spec({ addresses: [hex(TOKEN_A)] }));
    expect(filters.logFilter(logs).criteria.addresses).toEqual([hex(TOKEN_A)]);
  });

  it("uninstalls: true once, then false, and the id is gone", () => {
    const id = filters.newBlockFilter();
    expect(filters.uninstall(id)).toBe(true);
    expect(filters.uninstall(id)).toBe(false);
    expect(() => filters.changes(id)).toThrow(FilterNotFoundError);
    expect(filters.size).toBe(0);
  });

  it("expires a filter not polled within the timeout; each poll restarts its clock", () => {
    const polled = filters.newBlockFilter();
    const idle = filters.newLogFilter(spec());
    vi.advanceTimersByTime(TIMEOUT - 1_000);
    filters.changes(polled);
    vi.advanceTimersByTime(TIMEOUT - 1_000);
    expect(() => filters.logFilter(idle)).toThrow(FilterNotFoundError);
    expect(filters.size).toBe(1);
    expect(filters.changes(polled)).toEqual([]);
    vi.advanceTimersByTime(TIMEOUT + 60_000);
    expect(filters.size).toBe(0);
    expect(() => filters.changes(polled)).toThrow(FilterNotFoundError);
  });

  it("sweeps expired filters periodically without being asked", () => {
    manager({ filterTimeoutMs: 1_000, sweepIntervalMs: 250 });
    filters.newBlockFilter();
    filters.newPendingTransactionFilter();
    vi.advanceTimersByTime(750);
    expect(filters.size).toBe(2);
    vi.advanceTimersByTime(500);
    expect(filters.size).toBe(0);
  });

  it("never finds an expired filter, even before the sweep", () => {
    manager({ filterTimeoutMs: 1_000, sweepIntervalMs: 60_000 });
    const id = filters.newBlockFilter();
    vi.advanceTimersByTime(1_000);
    expect(filters.uninstall(id)).toBe(false);
    const other = filters.newBlockFilter();
    vi.advanceTimersByTime(1_000);
    expect(() => filters.changes(other)).toThrow(FilterNotFoundError);
  });

  it("keeps at most maxChanges results per filter, dropping the oldest", () => {
    manager({ maxChanges: 3 });
    const blocks = filters.newBlockFilter();
    const logs = filters.newLogFilter(spec());
    for (let n = 1n; n <= 5n; n++) events.emit("newHead", head(n));
    events.emit(
      "newHead",
      head(6n, [[log(TOKEN_A, TRANSFER), log(TOKEN_A, TRANSFER)], [log(TOKEN_A, TRANSFER)]]),
    );
    events.emit("newHead", head(7n, [[log(TOKEN_B, TRANSFER)]]));
    expect(filters.changes(blocks)).toEqual([5, 6, 7].map((n) => hex(bytes(n, 32))));
    expect((filters.changes(logs) as RpcLog[]).map((l) => [l.blockNumber, l.logIndex])).toEqual([
      ["0x6", "0x1"],
      ["0x6", "0x2"],
      ["0x7", "0x0"],
    ]);
  });

  it("refuses more than maxFilters filters until one is uninstalled or expires", () => {
    manager({ maxFilters: 2, filterTimeoutMs: 1_000, sweepIntervalMs: 60_000 });
    const first = filters.newBlockFilter();
    filters.newPendingTransactionFilter();
    expect(() => filters.newLogFilter(spec())).toThrow(TooManyFiltersError);
    expect(() => filters.newBlockFilter()).toThrow("too many filters");
    filters.uninstall(first);
    const third = filters.newLogFilter(spec());
    vi.advanceTimersByTime(500);
    filters.changes(third);
    vi.advanceTimersByTime(600);
    // the pending filter has expired (not yet swept): installing sweeps it
    filters.newBlockFilter();
    expect(filters.size).toBe(2);
    expect(() => filters.newBlockFilter()).toThrow(TooManyFiltersError);
  });

  it("caps the filters of each caller apart from the node's cap, and frees a caller's slots as they go", () => {
    manager({ maxFilters: 10, maxFiltersPerCaller: 2, filterTimeoutMs: 1_000, sweepIntervalMs: 60_000 });
    const first = filters.newBlockFilter("ip:198.51.100.1");
    filters.newLogFilter(spec(), "ip:198.51.100.1");
    expect(() => filters.newPendingTransactionFilter(false, "ip:198.51.100.1")).toThrow(
      "too many filters for this caller",
    );
    // Another caller still gets its own.
    filters.newBlockFilter("ip:198.51.100.2");
    filters.newBlockFilter("ip:198.51.100.2");
    filters.uninstall(first);
    filters.newBlockFilter("ip:198.51.100.1");
    // Expired filters free their caller's slots too.
    vi.advanceTimersByTime(1_100);
    filters.newBlockFilter("ip:198.51.100.1");
    filters.newBlockFilter("ip:198.51.100.1");
    expect(filters.size).toBe(2);
  });

  it("reports filters and the largest backlog at their bounds when filled past them", () => {
    manager({ maxFilters: 20, maxChanges: 50 });
    const structure = (name: string) => filters.boundedStructures().find((s) => s.name === name)!;
    for (let i = 0; i < 40; i++) {
      try {
        filters.newBlockFilter();
      } catch (error) {
        expect(error).toBeInstanceOf(TooManyFiltersError);
      }
    }
    for (let n = 1n; n <= 200n; n++) events.emit("newHead", head(n));
    expect({ size: structure("filters").size(), bound: structure("filters").bound }).toEqual({
      size: 20,
      bound: 20,
    });
    expect({ size: structure("filter_changes").size(), bound: structure("filter_changes").bound }).toEqual({
      size: 50,
      bound: 50,
    });
  });

  it("stops listening to the chain and sweeping when stopped", () => {
    const id = filters.newBlockFilter();
    filters.stop();
    events.emit("newHead", head(1n));
    expect(filters.size).toBe(0);
    expect(() => filters.changes(id)).toThrow(FilterNotFoundError);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("BoundedBuffer", () => {
  it("drains oldest first and drops the oldest beyond its capacity", () => {
    const buffer = new BoundedBuffer<number>(3);
    buffer.push(1);
    buffer.push(2);
    expect(buffer.drain()).toEqual([1, 2]);
    for (let i = 1; i <= 7; i++) buffer.push(i);
    expect(buffer.size).toBe(3);
    expect(buffer.drain()).toEqual([5, 6, 7]);
    expect(buffer.drain()).toEqual([]);
    buffer.push(8);
    expect(buffer.drain()).toEqual([8]);
  });

  it("rejects a capacity below one", () => {
    expect(() => new BoundedBuffer(0)).toThrow(RangeError);
  });
});
