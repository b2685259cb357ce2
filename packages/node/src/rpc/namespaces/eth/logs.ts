import { InvalidParamsError, type LogFilter } from "@strata/protocol";
import { searchLogs } from "../../log-search.js";
import { defineMethods } from "../../registry.js";
import type { RpcServices } from "../../services.js";

/** `eth_getLogs`. */
export const logMethods = defineMethods({
  eth_getLogs: ([filter], services) => {
    refuseFutureRange(services, filter);
    return searchLogs(services, filter);
  },
});

/**
 * As geth: a range whose numeric end lies beyond the head is refused (-32602) rather than cut short,
 * so a caller never mistakes "not yet mined" for "no logs". Installed filters keep collecting up to
 * such an end as blocks arrive.
 */
function refuseFutureRange(services: RpcServices, filter: LogFilter): void {
  const to = filter.toBlock;
  if (to && "number" in to && to.number > services.chain.head.header.number) {
    throw new InvalidParamsError("block range extends beyond current head block");
  }
}
