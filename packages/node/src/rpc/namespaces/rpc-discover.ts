import { buildOpenRpcDocument } from "../openrpc.js";
import { defineMethods, type MethodRegistry } from "../registry.js";

/**
 * `rpc.discover`: the OpenRPC document of every method `registry` serves, read from the registry at
 * each call so that every namespace registered with it is described, this method included.
 */
export function rpcDiscoverMethods(registry: MethodRegistry) {
  return defineMethods({
    "rpc.discover": (_, services) =>
      buildOpenRpcDocument(registry.entries(), {
        title: "Strata JSON-RPC API",
        version: services.clientVersion,
      }),
  });
}
