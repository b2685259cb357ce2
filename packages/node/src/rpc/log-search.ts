import {
  type Hex,
  InvalidParamsError,
  LimitExceededError,
  type LogFilter,
  type RpcLog,
  toQuantity,
} from "@strata/protocol";
import { collectBlockLogs, type LogCriteria, queryLogs, TooManyLogsError } from "../chain/log-query.js";
import { RawJson } from "./raw-json.js";
import { findBlock, type RpcServices } from "./services.js";

const MAX_ALTERNATIVES = 1000;

/** Normalises the address/topic part of a filter, enforcing the criteria limits. */
export function toCriteria(filter: LogFilter): LogCriteria {
  const addresses =
    filter.address == null ? [] : Array.isArray(filter.address) ? filter.address : [filter.address];
  if (addresses.length > MAX_ALTERNATIVES)
    throw new InvalidParamsError(`too many addresses, at most ${MAX_ALTERNATIVES}`);
  // A null position, or a null among a position's alternatives, matches any topic (as geth).
  const topics = (filter.topics ?? []).map((t): Hex[] | null =>
    t === null ? null : Array.isArray(t) ? (t.includes(null) ? null : (t as Hex[])) : [t],
  );
  if (topics.length > 4) throw new InvalidParamsError("too many topics, at most 4 positions");
  for (const alternatives of topics) {
    if (alternatives && alternatives.length > MAX_ALTERNATIVES) {
      throw new InvalidParamsError(`too many topic alternatives, at most ${MAX_ALTERNATIVES}`);
    }
  }
  return { addresses, topics };
}

function blockNumberOf(services: RpcServices, selector: LogFilter["fromBlock"], fallback: bigint): bigint {
  if (!selector) return fallback;
  const block = findBlock(services, selector);
  if (block) return block.header.number;
  if ("number" in selector) return selector.number;
  return fallback;
}

/**
 * Answers a log query as `eth_getLogs` does: one block by hash, or a range (tags resolved now) within
 * the node's range and result limits; -32005 with `data: {fromBlock, toBlock}` names a range that
 * would succeed.
 */
export function searchLogs(services: RpcServices, query: LogFilter): RpcLog[] | RawJson<RpcLog[]> {
  const criteria = toCriteria(query);
  const store = services.chain.store;
  if (query.blockHash) {
    if (query.fromBlock || query.toBlock) {
      throw new InvalidParamsError(
        "invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other",
      );
    }
    const block = services.chain.blockByHash(Buffer.from(query.blockHash.slice(2), "hex"));
    if (!block) throw new InvalidParamsError("invalid argument 0: unknown block");
    const out: RpcLog[] = [];
    collectBlockLogs(store, block, criteria, out);
    return out;
  }
  const head = services.chain.head.header.number;
  const from = blockNumberOf(services, query.fromBlock, head);
  const to = blockNumberOf(services, query.toBlock, head);
  if (from > to) throw new InvalidParamsError("invalid argument 0: invalid block range params");
  const last = to > head ? head : to;
  const maxRange = BigInt(services.config.rpc.maxLogRange);
  const maxResults = services.config.rpc.maxLogResults;
  if (last - from + 1n > maxRange) {
    throw new LimitExceededError(`block range exceeds the limit of ${maxRange} blocks`, {
      fromBlock: toQuantity(from),
      toBlock: toQuantity(from + maxRange - 1n),
    });
  }
  try {
    return from > head
      ? []
      : new RawJson(
          `[${queryLogs(store, services.chain.logCache, from, last, criteria, maxResults).join(",")}]`,
        );
  } catch (error) {
    if (!(error instanceof TooManyLogsError)) throw error;
    throw new LimitExceededError(`query returned more than ${maxResults} results`, {
      fromBlock: toQuantity(from),
      toBlock: toQuantity(error.lastFullBlock),
    });
  }
}
