import {
  InvalidParamsError,
  LimitExceededError,
  type LogFilter,
  type RpcLog,
  toQuantity,
} from "@strata/protocol";
import { collectBlockLogs, queryLogs, TooManyLogsError } from "../../chain/log-query.js";
import { toCriteria } from "../namespaces/eth/logs.js";
import { findBlock, type RpcServices } from "../services.js";
import type { LogFilterSpec } from "./filter-manager.js";

/**
 * Checks the filter object of `eth_newFilter` and derives what the filter collects from new blocks.
 * Only numeric bounds limit collection; a tag (`latest`, `pending`...) or an absent bound does not.
 * Criteria limits and the blockHash rule are those of `eth_getLogs`.
 */
export function toLogFilterSpec(services: RpcServices, query: LogFilter): LogFilterSpec {
  const criteria = toCriteria(query);
  if (query.blockHash) {
    if (query.fromBlock || query.toBlock) {
      throw new InvalidParamsError(
        "invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other",
      );
    }
    return { query, criteria, blockHash: query.blockHash };
  }
  const from = query.fromBlock && "number" in query.fromBlock ? query.fromBlock.number : undefined;
  const to = query.toBlock && "number" in query.toBlock ? query.toBlock.number : undefined;
  if (to !== undefined) {
    const earliest = query.fromBlock && "tag" in query.fromBlock && query.fromBlock.tag === "earliest";
    const start = from ?? (earliest ? 0n : services.chain.head.header.number);
    if (start > to) throw new InvalidParamsError("invalid argument 0: invalid from and to block combination");
  }
  return {
    query,
    criteria,
    ...(from === undefined ? {} : { fromBlock: from }),
    ...(to === undefined ? {} : { toBlock: to }),
  };
}

function blockNumberOf(services: RpcServices, selector: LogFilter["fromBlock"], fallback: bigint): bigint {
  if (!selector) return fallback;
  const block = findBlock(services, selector);
  if (block) return block.header.number;
  if ("number" in selector) return selector.number;
  return fallback;
}

/**
 * Runs a log filter's query over the chain as `eth_getLogs` would (tags resolved now), with the same
 * range and result limits: -32005 with `data: {fromBlock, toBlock}` naming a range that would succeed.
 */
export function queryFilterLogs(services: RpcServices, spec: LogFilterSpec): RpcLog[] {
  const { query, criteria } = spec;
  const store = services.chain.store;
  if (spec.blockHash) {
    const block = store.blockByHash(Buffer.from(spec.blockHash.slice(2), "hex"));
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
    return from > head ? [] : queryLogs(store, from, last, criteria, maxResults);
  } catch (error) {
    if (!(error instanceof TooManyLogsError)) throw error;
    throw new LimitExceededError(`query returned more than ${maxResults} results`, {
      fromBlock: toQuantity(from),
      toBlock: toQuantity(error.lastFullBlock),
    });
  }
}
