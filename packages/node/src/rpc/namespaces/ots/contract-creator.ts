import { bytesToHex, createAddressFromString } from "@ethereumjs/util";
import { type CallFrame, CallTracer } from "../../../execution/tracing/call-tracer.js";
import type { RpcServices } from "../../services.js";

/** `ots_getContractCreator`'s answer: the deploying transaction and the account that created the contract. */
export interface ContractCreator {
  hash: string;
  creator: string;
}

function findCreation(frame: CallFrame, address: string): CallFrame | undefined {
  if ((frame.type === "CREATE" || frame.type === "CREATE2") && frame.to === address && !frame.error)
    return frame;
  for (const child of frame.calls ?? []) {
    const found = findCreation(child, address);
    if (found) return found;
  }
  return undefined;
}

async function hasCodeAt(services: RpcServices, address: string, number: bigint): Promise<boolean> {
  const block = services.chain.blockByNumber(number);
  if (!block) return false;
  return (await services.chain.stateAt(block).getCode(createAddressFromString(address))).length > 0;
}

/**
 * Who deployed `address`: top-level deployments come from the address index; a contract created
 * by another contract is found by bisecting the blocks for the first one where it has code, then
 * tracing that block's transactions for the creating frame. Null for accounts without code.
 */
export async function contractCreator(
  services: RpcServices,
  address: string,
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
  for (const tx of block?.transactions ?? []) {
    const tree = (await services.tracing.traceMined(tx.hash(), () => new CallTracer())) as CallFrame;
    const creation = findCreation(tree, address);
    if (creation) return { hash: bytesToHex(tx.hash()), creator: creation.from };
  }
  return null;
}
