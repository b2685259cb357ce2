import type { Block } from "@ethereumjs/block";
import { Bloom } from "@ethereumjs/vm";
import type { Hex, RpcLog } from "@strata/protocol";
import type { ChainStore } from "../storage/chain-store.js";
import type { IndexCriteria } from "../storage/log-index.js";
import type { StoredLog } from "../storage/records.js";
import type { BlockLogsCache } from "./block-logs-cache.js";
import { formatLogsOf } from "./log-format.js";

/** Address and topic criteria of a log query, already normalised to lowercase hex. */
export interface LogCriteria {
  /** Matching addresses; empty matches any. */
  readonly addresses: readonly Hex[];
  /** Per position: the allowed topics, or null for any. */
  readonly topics: readonly (readonly Hex[] | null)[];
}

/** Raised when a query would return more logs than allowed. */
export class TooManyLogsError extends Error {
  constructor(readonly lastFullBlock: bigint) {
    super("query returned more than the log limit");
  }
}

/** True when `log` satisfies `criteria`. */
export function matchesLog(log: StoredLog, criteria: LogCriteria): boolean {
  return matchesHexLog(hex(log.address), log.topics.map(hex), criteria);
}

/** {@link matchesLog} for a log whose address and topics are already lowercase hex. */
export function matchesHexLog(
  address: Hex,
  topics: readonly Hex[],
  criteria: LogCriteria | undefined,
): boolean {
  if (!criteria) return true;
  if (criteria.addresses.length > 0 && !criteria.addresses.includes(address)) return false;
  for (let i = 0; i < criteria.topics.length; i++) {
    const allowed = criteria.topics[i];
    if (!allowed || allowed.length === 0) continue;
    const topic = topics[i];
    if (!topic || !allowed.includes(topic)) return false;
  }
  return true;
}

/** True when the block's bloom may hold a log matching `criteria` (false means it certainly does not). */
export function bloomMayMatch(block: Block, criteria: LogCriteria): boolean {
  const bloom = new Bloom(block.header.logsBloom);
  if (criteria.addresses.length > 0 && !criteria.addresses.some((a) => bloom.check(bytes(a)))) return false;
  for (const allowed of criteria.topics) {
    if (allowed && allowed.length > 0 && !allowed.some((t) => bloom.check(bytes(t)))) return false;
  }
  return true;
}

/**
 * The logs of canonical blocks `from..to` matching `criteria`, in block order, each as JSON text.
 * Candidate blocks come from the store's address/topic index and only their receipts are read.
 * Throws {@link TooManyLogsError} past `maxLogs`, naming the last block that still fit.
 */
export function queryLogs(
  store: ChainStore,
  cache: BlockLogsCache,
  from: bigint,
  to: bigint,
  criteria: LogCriteria,
  maxLogs: number,
): string[] {
  const out: string[] = [];
  const everything = criteria.addresses.length === 0 && criteria.topics.every((t) => !t || t.length === 0);
  for (const n of store.logBlocks(indexCriteria(criteria), from, to)) {
    const ref = store.blockRef(n);
    const block = ref && cache.get(ref, () => store.receipts(ref.hash));
    if (!block) break;
    block.keys.forEach((key, i) => {
      if (everything || matchesHexLog(key.address, key.topics, criteria)) out.push(block.json[i]!);
    });
    if (out.length > maxLogs) throw new TooManyLogsError(n > from ? n - 1n : from);
  }
  return out;
}

function indexCriteria(criteria: LogCriteria): IndexCriteria {
  return {
    addresses: criteria.addresses.map(bytes),
    topics: criteria.topics.map((alternatives) => (alternatives ? alternatives.map(bytes) : null)),
  };
}

/** Appends the logs of one block matching `criteria` to `out`. */
export function collectBlockLogs(
  store: ChainStore,
  block: Block,
  criteria: LogCriteria,
  out: RpcLog[],
): void {
  if (block.transactions.length === 0 || !bloomMayMatch(block, criteria)) return;
  const receipts = store.receipts(block.hash()) ?? [];
  for (const log of formatLogsOf(block, receipts, (l) => matchesLog(l, criteria))) out.push(log);
}

function hex(value: Uint8Array): Hex {
  return `0x${Buffer.from(value).toString("hex")}`;
}

function bytes(value: Hex): Uint8Array {
  return Buffer.from(value.slice(2), "hex");
}
