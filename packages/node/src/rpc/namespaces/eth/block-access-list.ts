import type { Block } from "@ethereumjs/block";
import { UnknownResourceError } from "../../../errors/domain-errors.js";
import { defineMethods } from "../../registry.js";
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
export const blockAccessListMethods = defineMethods({
  eth_getBlockAccessList: ([at], services) => requireBlockAccessList(findBlock(services, at)),
});
