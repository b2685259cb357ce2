import { DePINRegistry, PriceOracle, Staking, TestToken } from "@strata/contracts";
import type { indexerDb } from "@strata/db";
import { type Abi, decodeEventLog, type Hex } from "viem";

type StoredBlock = indexerDb.StoredBlock;
type StoredTransaction = indexerDb.StoredTransaction;
type StoredLog = indexerDb.StoredLog;
type StoredTokenTransfer = indexerDb.StoredTokenTransfer;
type StoredToken = indexerDb.StoredToken;

/*
 * Rows to REST JSON: camelCase; wei amounts and other big numbers as decimal strings; block numbers,
 * indexes and counts as numbers; times as `timestamp` (unix seconds) plus `datetime` (ISO 8601 UTC).
 */

/**
 * A percentage string as JSON-RPC gives uptime ("99.90", DECISIONS.md) as the decimal fraction REST
 * gives every ratio in ("0.999"), shifted digit by digit so nothing is lost to floating point.
 */
export function percentToFraction(percent: string): string {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(percent);
  if (!match) throw new Error(`not a percentage: "${percent}"`);
  const decimals = (match[2] ?? "").length + 2;
  const digits = `${match[1]}${match[2] ?? ""}`.padStart(decimals + 1, "0");
  const whole = digits.slice(0, -decimals).replace(/^0+(?=\d)/, "");
  const fraction = digits.slice(-decimals).replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole;
}

/** The same object with its `uptime` percentage (when a string) as a fraction. */
export function withUptimeFraction<T extends { uptime?: unknown }>(item: T): T {
  return typeof item.uptime === "string" ? { ...item, uptime: percentToFraction(item.uptime) } : item;
}

/** ISO 8601 UTC of unix seconds. */
export const isoOf = (seconds: bigint | number) => new Date(Number(seconds) * 1000).toISOString();

/** A block header. */
export function blockJson(b: StoredBlock) {
  return {
    number: Number(b.number),
    hash: b.hash,
    parentHash: b.parent_hash,
    timestamp: Number(b.timestamp),
    datetime: isoOf(b.timestamp),
    miner: b.miner,
    gasUsed: b.gas_used,
    gasLimit: b.gas_limit,
    baseFeePerGas: b.base_fee_per_gas,
    transactionCount: b.transaction_count,
    size: Number(b.size),
  };
}

/** A transaction summary (list rows and a block's transactions). */
export function transactionSummaryJson(t: StoredTransaction) {
  return {
    hash: t.hash,
    blockNumber: Number(t.block_number),
    blockHash: t.block_hash,
    index: t.tx_index,
    timestamp: Number(t.timestamp),
    datetime: isoOf(t.timestamp),
    from: t.from_address,
    to: t.to_address,
    value: t.value,
    nonce: Number(t.nonce),
    gas: t.gas,
    gasPrice: t.gas_price,
    maxFeePerGas: t.max_fee_per_gas,
    maxPriorityFeePerGas: t.max_priority_fee_per_gas,
    type: t.type,
    status:
      t.status === null
        ? ("pending" as const)
        : t.status === 1
          ? ("success" as const)
          : ("reverted" as const),
    gasUsed: t.gas_used,
    effectiveGasPrice: t.effective_gas_price,
    contractAddress: t.contract_address,
    methodId: t.input.length >= 10 ? t.input.slice(0, 10) : null,
  };
}

/** A transaction with its receipt, logs and token transfers. */
export function transactionJson(
  t: StoredTransaction,
  logs: readonly StoredLog[],
  transfers: readonly StoredTokenTransfer[],
) {
  const { methodId: _methodId, ...summary } = transactionSummaryJson(t);
  return {
    ...summary,
    input: t.input,
    revertReason: t.revert_reason,
    logs: logs.map(logJson),
    tokenTransfers: transfers.map(transferJson),
  };
}

const KNOWN_ABIS: readonly Abi[] = [TestToken.abi, Staking.abi, DePINRegistry.abi, PriceOracle.abi];

/** A log, with `decoded` when one of the known ABIs (ERC-20, the system contracts) matches it. */
export function logJson(l: StoredLog) {
  const topics = [l.topic0, l.topic1, l.topic2, l.topic3].filter((t): t is string => t !== null);
  return { index: l.log_index, address: l.address, topics, data: l.data, ...decodeLog(topics, l.data) };
}

function decodeLog(
  topics: string[],
  data: string,
): { decoded?: { event: string; args: Record<string, unknown> } } {
  if (topics.length === 0) return {};
  for (const abi of KNOWN_ABIS) {
    try {
      const event = decodeEventLog({
        abi,
        topics: topics as [Hex, ...Hex[]],
        data: data as Hex,
        strict: true,
      });
      const args = Object.fromEntries(
        Object.entries((event.args ?? {}) as Record<string, unknown>).map(([k, v]) => [k, plain(v)]),
      );
      return { decoded: { event: String(event.eventName), args } };
    } catch {}
  }
  return {};
}

function plain(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === "string" && /^0x[0-9a-fA-F]{40}$/.test(value)) return value.toLowerCase();
  return value;
}

/** A token transfer. */
export function transferJson(x: StoredTokenTransfer) {
  return {
    token: x.token,
    symbol: x.symbol,
    decimals: x.decimals,
    from: x.from_address,
    to: x.to_address,
    value: x.value,
    logIndex: x.log_index,
    transactionHash: x.transaction_hash,
    blockNumber: Number(x.block_number),
    timestamp: Number(x.timestamp),
    datetime: isoOf(x.timestamp),
  };
}

/** A token's stored metadata. */
export function tokenJson(k: StoredToken) {
  return {
    address: k.address,
    name: k.name,
    symbol: k.symbol,
    decimals: k.decimals,
    totalSupply: k.total_supply,
    firstSeenBlock: Number(k.block_number),
  };
}

/** A page of a list: `nextCursor` is set when the page is full. */
export function page<Row, Item>(
  rows: readonly Row[],
  limit: number,
  toItem: (row: Row) => Item,
  cursorOf: (row: Row) => string,
) {
  const last = rows.at(-1);
  return {
    items: rows.map(toItem),
    nextCursor: rows.length === limit && last !== undefined ? cursorOf(last) : null,
  };
}
