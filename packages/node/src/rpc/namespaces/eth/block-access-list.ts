import type { Block } from "@ethereumjs/block";
import { BlockSpec } from "@strata/protocol";
import { UnknownResourceError } from "../../../errors/domain-errors.js";
import { defineMethod } from "../../registry.js";
import { findBlock } from "../../services.js";

/**
 * Block access lists (EIP-7928) exist only for blocks of Amsterdam and later; the node keeps none,
 * so an existing block answers -32001 (the specification's "resource not found") and an unknown
 * block `null`.
 */
export function requireBlockAccessList(block: Block | undefined): null {
  if (!block) return null;
  throw new UnknownResourceError(`block access list not available for block ${block.header.number}`);
}

/** `eth_getBlockAccessList`. */
export const blockAccessListMethods = {
  eth_getBlockAccessList: defineMethod({
    params: [BlockSpec],
    required: 1,
    summary: "Returns the EIP-7928 block access list of a block (none are kept: -32001 for existing blocks).",
    handler: ([at], services) => requireBlockAccessList(findBlock(services, at)),
  }),
};
