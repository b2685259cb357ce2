import { queryFilterLogs, toLogFilterSpec } from "../../filters/log-filter.js";
import { defineMethods } from "../../registry.js";

/**
 * Polling filters (geth's `eth_newFilter` family): install, poll changes, re-run a log filter's
 * query, uninstall. Unknown or expired ids answer -32000 "filter not found". Installs count
 * against the caller's address (HTTP and WebSocket alike) and the node's cap.
 */
export const filterMethods = defineMethods({
  eth_newFilter: ([filter], services, context) =>
    services.filters.newLogFilter(toLogFilterSpec(services, filter), context.caller),
  eth_newBlockFilter: (_args, services, context) => services.filters.newBlockFilter(context.caller),
  eth_newPendingTransactionFilter: ([fullTransactions], services, context) =>
    services.filters.newPendingTransactionFilter(fullTransactions ?? false, context.caller),
  eth_getFilterChanges: ([id], services) => services.filters.changes(id),
  eth_getFilterLogs: ([id], services) => queryFilterLogs(services, services.filters.logFilter(id)),
  eth_uninstallFilter: ([id], services) => services.filters.uninstall(id),
});
