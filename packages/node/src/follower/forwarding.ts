import { Bytes } from "@strata/protocol";
import { defineMethod } from "../rpc/registry.js";
import type { SourceClient } from "./source-client.js";

/**
 * The methods a follower answers by forwarding to its source: `eth_sendRawTransaction` goes to the
 * node that produces blocks, and its answer (hash or error) comes back unchanged.
 */
export function forwardedMethods(source: SourceClient) {
  return {
    eth_sendRawTransaction: defineMethod({
      params: [Bytes],
      required: 1,
      handler: ([raw]) => source.call("eth_sendRawTransaction", [raw]),
    }),
  };
}
