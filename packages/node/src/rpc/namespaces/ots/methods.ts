import { createAddressFromString } from "@ethereumjs/util";
import { Address, BlockNumberOrTag, type BlockSelector, BlockSpec, Hash32 } from "@strata/protocol";
import { z } from "zod";
import { ExecutionError, NotFoundError } from "../../../errors/domain-errors.js";
import { type CallFrame, REVERT_MESSAGE } from "../../../execution/tracing/call-tracer.js";
import { formatHeader } from "../../format/block.js";
import { defineMethod, type RpcContext } from "../../registry.js";
import { findBlock, type RpcServices, requireBlock } from "../../services.js";
import { blockDetails, blockTransactions } from "./blocks.js";
import { contractCreator } from "./contract-creator.js";
import { MAX_PAGE_SIZE, searchAfter, searchBefore } from "./search.js";
import { internalOperations, traceEntries } from "./trace-views.js";

/** The Otterscan API level served (Erigon's `API_LEVEL`). */
export const OTS_API_LEVEL = 8;

/** A block number as Otterscan sends it: a JSON number, a hex quantity or a tag. */
const OtsBlockNumber = z.union([
  z
    .number()
    .int()
    .nonnegative()
    .transform((n): BlockSelector => ({ number: BigInt(n) })),
  BlockNumberOrTag,
]);
const Uint = (max: number) => z.number().int().min(0).max(max);
const Uint64 = z.union([
  z.number().int().nonnegative().transform(BigInt),
  z
    .string()
    .regex(/^0x(0|[1-9a-f][0-9a-f]{0,15})$/i)
    .transform(BigInt),
]);

function bytes(hex: string): Uint8Array {
  return Buffer.from(hex.slice(2), "hex");
}

async function callTree(services: RpcServices, hash: string, context: RpcContext): Promise<CallFrame> {
  const location = services.chain.store.txLocation(bytes(hash));
  if (!location) throw new NotFoundError(`transaction ${hash} not found`);
  return (await services.execution.traceTransaction(
    bytes(hash),
    { tracer: "callTracer" },
    context,
  )) as CallFrame;
}

function checkPageSize(pageSize: number): void {
  if (pageSize > MAX_PAGE_SIZE) throw new ExecutionError(`max allowed page size: ${MAX_PAGE_SIZE}`);
}

/** Otterscan's `ots_` namespace (and the one `erigon_` method it needs), shaped as Erigon serves them. */
export const otsMethods = {
  ots_getApiLevel: defineMethod({ params: [], required: 0, handler: () => OTS_API_LEVEL }),
  ots_hasCode: defineMethod({
    params: [Address, BlockSpec],
    required: 1,
    handler: async ([address, at], services) => {
      const block = requireBlock(services, at);
      const code = await services.chain.stateAt(block).getCode(createAddressFromString(address));
      return code.length > 0;
    },
  }),
  ots_getTransactionError: defineMethod({
    params: [Hash32],
    required: 1,
    handler: async ([hash], services, context) => {
      const root = await callTree(services, hash, context);
      return root.error === REVERT_MESSAGE ? (root.output ?? "0x") : "0x";
    },
  }),
  ots_traceTransaction: defineMethod({
    params: [Hash32],
    required: 1,
    handler: async ([hash], services, context) => traceEntries(await callTree(services, hash, context)),
  }),
  ots_getInternalOperations: defineMethod({
    params: [Hash32],
    required: 1,
    handler: async ([hash], services, context) => internalOperations(await callTree(services, hash, context)),
  }),
  ots_getBlockDetails: defineMethod({
    params: [OtsBlockNumber],
    required: 1,
    handler: ([at], services) => {
      const block = findBlock(services, at);
      return block ? blockDetails(services, block) : null;
    },
  }),
  ots_getBlockDetailsByHash: defineMethod({
    params: [Hash32],
    required: 1,
    handler: ([hash], services) => {
      const block = services.chain.blockByHash(bytes(hash));
      return block ? blockDetails(services, block) : null;
    },
  }),
  ots_getBlockTransactions: defineMethod({
    params: [OtsBlockNumber, Uint(255), Uint(255)],
    required: 3,
    handler: ([at, pageNumber, pageSize], services) => {
      const block = findBlock(services, at);
      return block ? blockTransactions(services, block, pageNumber, pageSize) : null;
    },
  }),
  ots_searchTransactionsBefore: defineMethod({
    params: [Address, Uint64, Uint(65_535)],
    required: 3,
    handler: ([address, blockNumber, pageSize], services) => {
      checkPageSize(pageSize);
      return searchBefore(services, bytes(address), blockNumber, pageSize);
    },
  }),
  ots_searchTransactionsAfter: defineMethod({
    params: [Address, Uint64, Uint(65_535)],
    required: 3,
    handler: ([address, blockNumber, pageSize], services) => {
      checkPageSize(pageSize);
      return searchAfter(services, bytes(address), blockNumber, pageSize);
    },
  }),
  ots_getTransactionBySenderAndNonce: defineMethod({
    params: [Address, Uint64],
    required: 2,
    handler: ([sender, nonce], services) => {
      const hash = services.chain.store.txBySenderAndNonce(bytes(sender), nonce);
      return hash ? `0x${Buffer.from(hash).toString("hex")}` : null;
    },
  }),
  /** Erigon's header lookup, which Otterscan uses to read block headers. */
  erigon_getHeaderByNumber: defineMethod({
    params: [OtsBlockNumber],
    required: 1,
    handler: ([at], services) => {
      const block = findBlock(services, at);
      return block ? formatHeader(block.header) : null;
    },
  }),
  ots_getContractCreator: defineMethod({
    params: [Address],
    required: 1,
    handler: ([address], services, context) => contractCreator(services, address.toLowerCase(), context),
  }),
};
