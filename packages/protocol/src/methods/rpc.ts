import { method } from "./define.js";
import { OpenResult } from "./results.js";

/** OpenRPC service discovery. */
export const rpcMethods = {
  "rpc.discover": method({
    params: [],
    required: 0,
    result: OpenResult,
    summary: "Returns the OpenRPC document of every method this node serves.",
  }),
};
