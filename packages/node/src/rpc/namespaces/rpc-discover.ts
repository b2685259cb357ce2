import { buildOpenRpcDocument } from "../openrpc.js";
import { defineMethod, type MethodRegistry } from "../registry.js";

/**
 * `rpc.discover`: the OpenRPC document of every method `registry` serves, read from the registry at
 * each call so that every namespace registered with it is described, this method included.
 */
export function rpcDiscoverMethods(registry: MethodRegistry) {
  return {
    "rpc.discover": defineMethod({
      params: [],
      required: 0,
      summary: "Returns the OpenRPC document of every method this node serves.",
      handler: (_, services) =>
        buildOpenRpcDocument(registry.entries(), {
          title: "Strata JSON-RPC API",
          version: services.clientVersion,
        }),
    }),
  };
}
