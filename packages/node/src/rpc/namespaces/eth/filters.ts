import { Bool, LogFilter } from "@strata/protocol";
import { z } from "zod";
import { queryFilterLogs, toLogFilterSpec } from "../../filters/log-filter.js";
import { defineMethod } from "../../registry.js";

/** A filter id as returned by the `eth_new*Filter` methods; any other string is simply not found. */
const FilterId = z.string({ error: "cannot unmarshal non-string into rpc.ID" });

/**
 * Polling filters (geth's `eth_newFilter` family): install, poll changes, re-run a log filter's
 * query, uninstall. Unknown or expired ids answer -32000 "filter not found". Installs count
 * against the caller's address (HTTP and WebSocket alike) and the node's cap.
 */
export const filterMethods = {
  eth_newFilter: defineMethod({
    params: [LogFilter],
    required: 1,
    handler: ([filter], services, context) =>
      services.filters.newLogFilter(toLogFilterSpec(services, filter), context.caller),
  }),
  eth_newBlockFilter: defineMethod({
    params: [],
    required: 0,
    handler: (_args, services, context) => services.filters.newBlockFilter(context.caller),
  }),
  eth_newPendingTransactionFilter: defineMethod({
    params: [Bool],
    required: 0,
    handler: ([fullTransactions], services, context) =>
      services.filters.newPendingTransactionFilter(fullTransactions ?? false, context.caller),
  }),
  eth_getFilterChanges: defineMethod({
    params: [FilterId],
    required: 1,
    handler: ([id], services) => services.filters.changes(id),
  }),
  eth_getFilterLogs: defineMethod({
    params: [FilterId],
    required: 1,
    handler: ([id], services) => queryFilterLogs(services, services.filters.logFilter(id)),
  }),
  eth_uninstallFilter: defineMethod({
    params: [FilterId],
    required: 1,
    handler: ([id], services) => services.filters.uninstall(id),
  }),
};
