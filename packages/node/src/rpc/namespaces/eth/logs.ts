import { type Hex, InvalidParamsError, LimitExceededError, LogFilter, toQuantity } from "@strata/protocol";
import { collectBlockLogs, type LogCriteria, queryLogs, TooManyLogsError } from "../../../chain/log-query.js";
import { defineMethod } from "../../registry.js";
import { findBlock, type RpcServices } from "../../services.js";

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

/** `eth_getLogs`. */
export const logMethods = {
  eth_getLogs: defineMethod({
    params: [LogFilter],
    required: 1,
    handler: ([filter], services) => {
      const criteria = toCriteria(filter);
      const store = services.chain.store;
      if (filter.blockHash) {
        if (filter.fromBlock || filter.toBlock) {
          throw new InvalidParamsError(
            "invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other",
          );
        }
        const block = store.blockByHash(Buffer.from(filter.blockHash.slice(2), "hex"));
        if (!block) throw new InvalidParamsError("invalid argument 0: unknown block");
        const out: ReturnType<typeof queryLogs> = [];
        collectBlockLogs(store, block, criteria, out);
        return out;
      }
      const head = services.chain.head.header.number;
      const from = blockNumberOf(services, filter.fromBlock, head);
      const to = blockNumberOf(services, filter.toBlock, head);
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
    },
  }),
};
