import { BlockNumberOrTag, Hash32 } from "@strata/protocol";
import { formatHeader } from "../../format/block.js";
import { defineMethod } from "../../registry.js";
import { findBlock } from "../../services.js";

/** geth's header getters: the block object without body fields, `null` for an unknown block. */
export const headerMethods = {
  eth_getHeaderByNumber: defineMethod({
    params: [BlockNumberOrTag],
    required: 1,
    summary: "Returns the header of a canonical block by number or tag.",
    handler: ([at], services) => {
      const block = findBlock(services, at);
      return block ? formatHeader(block.header) : null;
    },
  }),
  eth_getHeaderByHash: defineMethod({
    params: [Hash32],
    required: 1,
    summary: "Returns the header of a block by hash.",
    handler: ([hash], services) => {
      const block = services.chain.blockByHash(Buffer.from(hash.slice(2), "hex"));
      return block ? formatHeader(block.header) : null;
    },
  }),
};
