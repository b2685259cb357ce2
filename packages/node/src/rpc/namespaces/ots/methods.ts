import { createAddressFromString } from "@ethereumjs/util";
import { ExecutionError, NotFoundError } from "../../../errors/domain-errors.js";
import { type CallFrame, REVERT_MESSAGE } from "../../../execution/tracing/call-tracer.js";
import { formatHeader } from "../../format/block.js";
import { defineMethods, type RpcContext } from "../../registry.js";
import { findBlock, type RpcServices, requireBlock } from "../../services.js";
import { blockDetails, blockTransactions } from "./blocks.js";
import { contractCreator } from "./contract-creator.js";
import { MAX_PAGE_SIZE, searchAfter, searchBefore } from "./search.js";
import { internalOperations, traceEntries } from "./trace-views.js";

/** The Otterscan API level served (Erigon's `API_LEVEL`). */
export const OTS_API_LEVEL = 8;

function bytes(hex: string): Uint8Array {
  return Buffer.from(hex.slice(2), "hex");
}

async function callTree(services: RpcServices, hash: string, context: RpcContext): Promise<CallFrame> {
  const location = services.chain.store.txLocation(bytes(hash));
  if (!location) throw new NotFoundError(`transaction ${hash} not found`);
  return services.execution.callTree(bytes(hash), context);
}

function checkPageSize(pageSize: number): void {
  if (pageSize > MAX_PAGE_SIZE) throw new ExecutionError(`max allowed page size: ${MAX_PAGE_SIZE}`);
}

/** Otterscan's `ots_` namespace (and the one `erigon_` method it needs), shaped as Erigon serves them. */
export const otsMethods = defineMethods({
  ots_getApiLevel: () => OTS_API_LEVEL,
  ots_hasCode: async ([address, at], services) => {
    const block = requireBlock(services, at);
    const code = await services.chain.stateAt(block).getCode(createAddressFromString(address));
    return code.length > 0;
  },
  ots_getTransactionError: async ([hash], services, context) => {
    const root = await callTree(services, hash, context);
    return root.error === REVERT_MESSAGE ? (root.output ?? "0x") : "0x";
  },
  ots_traceTransaction: async ([hash], services, context) =>
    traceEntries(await callTree(services, hash, context)),
  ots_getInternalOperations: async ([hash], services, context) =>
    internalOperations(await callTree(services, hash, context)),
  ots_getBlockDetails: ([at], services) => {
    const block = findBlock(services, at);
    return block ? blockDetails(services, block) : null;
  },
  ots_getBlockDetailsByHash: ([hash], services) => {
    const block = services.chain.blockByHash(bytes(hash));
    return block ? blockDetails(services, block) : null;
  },
  ots_getBlockTransactions: ([at, pageNumber, pageSize], services) => {
    const block = findBlock(services, at);
    return block ? blockTransactions(services, block, pageNumber, pageSize) : null;
  },
  ots_searchTransactionsBefore: ([address, blockNumber, pageSize], services) => {
    checkPageSize(pageSize);
    return searchBefore(services, bytes(address), blockNumber, pageSize);
  },
  ots_searchTransactionsAfter: ([address, blockNumber, pageSize], services) => {
    checkPageSize(pageSize);
    return searchAfter(services, bytes(address), blockNumber, pageSize);
  },
  ots_getTransactionBySenderAndNonce: ([sender, nonce], services) => {
    const hash = services.chain.store.txBySenderAndNonce(bytes(sender), nonce);
    return hash ? `0x${Buffer.from(hash).toString("hex")}` : null;
  },
  /** Erigon's header lookup, which Otterscan uses to read block headers. */
  erigon_getHeaderByNumber: ([at], services) => {
    const block = findBlock(services, at);
    return block ? formatHeader(block.header) : null;
  },
  ots_getContractCreator: ([address], services, context) =>
    contractCreator(services, address.toLowerCase(), context),
});
