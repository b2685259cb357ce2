import { formatHeader } from "../../format/block.js";
import { defineMethods } from "../../registry.js";
import { findBlock } from "../../services.js";

/** geth's header getters: the block object without body fields, `null` for an unknown block. */
export const headerMethods = defineMethods({
  eth_getHeaderByNumber: ([at], services) => {
    const block = findBlock(services, at);
    return block ? formatHeader(block.header) : null;
  },
  eth_getHeaderByHash: ([hash], services) => {
    const block = services.chain.blockByHash(Buffer.from(hash.slice(2), "hex"));
    return block ? formatHeader(block.header) : null;
  },
});
