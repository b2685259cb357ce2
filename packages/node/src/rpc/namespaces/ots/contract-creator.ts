import { bytesToHex, createAddressFromString } from "@ethereumjs/util";
import type { ContractCreator } from "@strata/protocol";
import type { RpcContext } from "../../registry.js";
import type { RpcServices } from "../../services.js";

/** `ots_getContractCreator`'s answer: the deploying transaction and the account that created the contract. */

async function hasCodeAt(services: RpcServices, address: string, number: bigint): Promise<boolean> {
  const block = services.chain.blockByNumber(number);
  if (!block) return false;
  return (await services.chain.stateAt(block).getCode(createAddressFromString(address))).length > 0;
}

/**
 * Who deployed `address`: top-level deployments come from the address index; a contract created
 * by another contract is found by bisecting the blocks for the first one where it has code (a
 * state read per step, log2 of the chain's length), then replaying that block once on an execution
 * worker, with a call tracer per transaction, up to the one whose call tree creates it (bounded by
 * the trace time limit). Null for accounts without code.
 */
export async function contractCreator(
  services: RpcServices,
  address: string,
  context?: RpcContext,
): Promise<ContractCreator | null> {
  const indexed = services.chain.store.contractCreation(Buffer.from(address.slice(2), "hex"));
  if (indexed) return { hash: bytesToHex(indexed.txHash), creator: bytesToHex(indexed.creator) };
  let hi = services.chain.head.header.number;
  if (!(await hasCodeAt(services, address, hi))) return null;
  let lo = 0n;
  if (await hasCodeAt(services, address, lo)) return null;
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    if (await hasCodeAt(services, address, mid)) hi = mid;
    else lo = mid;
  }
  const block = services.chain.blockByNumber(hi);
  if (!block) return null;
  return services.execution.findCreation(block, address.toLowerCase(), context);
}
