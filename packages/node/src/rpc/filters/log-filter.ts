import { InvalidParamsError, type LogFilter, type RpcLog } from "@strata/protocol";
import { searchLogs, toCriteria } from "../log-search.js";
import type { RawJson } from "../raw-json.js";
import type { RpcServices } from "../services.js";
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

/**
 * Runs a log filter's query over the chain as `eth_getLogs` would (tags resolved now), with the same
 * range and result limits: -32005 with `data: {fromBlock, toBlock}` naming a range that would succeed.
 */
export function queryFilterLogs(services: RpcServices, spec: LogFilterSpec): RpcLog[] | RawJson<RpcLog[]> {
  return searchLogs(services, spec.query);
}
