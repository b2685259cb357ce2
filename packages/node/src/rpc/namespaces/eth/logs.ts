import { LogFilter } from "@strata/protocol";
import { searchLogs } from "../../log-search.js";
import { defineMethod } from "../../registry.js";

/** `eth_getLogs`. */
export const logMethods = {
  eth_getLogs: defineMethod({
    params: [LogFilter],
    required: 1,
    handler: ([filter], services) => searchLogs(services, filter),
  }),
};
