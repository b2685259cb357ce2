import { z } from "zod";
import { RpcHeader } from "../objects/chain.js";
import { Address, BlockNumberOrTag, type BlockSelector, BlockSpec, Hash32 } from "../schemas.js";
import { method } from "./define.js";
import { BoolResult, HexOrNull, OpenResult } from "./results.js";

/** A block number as Otterscan sends it: a JSON number, a hex quantity or a tag. */
export const OtsBlockNumber = z.union([
  z
    .number()
    .int()
    .nonnegative()
    .transform((n): BlockSelector => ({ number: BigInt(n) })),
  BlockNumberOrTag,
]);
/** A JSON integer from 0 to `max` (page numbers and sizes). */
const Uint = (max: number) => z.number().int().min(0).max(max);
/** A 64-bit unsigned number as a JSON number or a hex quantity. */
const OtsUint64 = z.union([
  z.number().int().nonnegative().transform(BigInt),
  z
    .string()
    .regex(/^0x(0|[1-9a-f][0-9a-f]{0,15})$/i)
    .transform(BigInt),
]);

/** The transaction that created a contract and its sender. */
export const ContractCreator = z.object({ hash: z.string(), creator: z.string() });
/** A contract creator on the wire. */
export type ContractCreator = z.infer<typeof ContractCreator>;

/** Otterscan's `ots_` namespace (and the one `erigon_` method it needs), shaped as Erigon serves them. */
export const otsMethods = {
  ots_getApiLevel: method({ params: [], required: 0, result: z.number() }),
  ots_hasCode: method({ params: [Address, BlockSpec], required: 1, result: BoolResult }),
  ots_getTransactionError: method({ params: [Hash32], required: 1, result: z.string() }),
  ots_traceTransaction: method({ params: [Hash32], required: 1, result: OpenResult }),
  ots_getInternalOperations: method({ params: [Hash32], required: 1, result: OpenResult }),
  ots_getBlockDetails: method({ params: [OtsBlockNumber], required: 1, result: OpenResult }),
  ots_getBlockDetailsByHash: method({ params: [Hash32], required: 1, result: OpenResult }),
  ots_getBlockTransactions: method({
    params: [OtsBlockNumber, Uint(255), Uint(255)],
    required: 3,
    result: OpenResult,
  }),
  ots_searchTransactionsBefore: method({
    params: [Address, OtsUint64, Uint(65_535)],
    required: 3,
    result: OpenResult,
  }),
  ots_searchTransactionsAfter: method({
    params: [Address, OtsUint64, Uint(65_535)],
    required: 3,
    result: OpenResult,
  }),
  ots_getTransactionBySenderAndNonce: method({
    params: [Address, OtsUint64],
    required: 2,
    result: HexOrNull,
  }),
  ots_getContractCreator: method({
    params: [Address],
    required: 1,
    result: ContractCreator.nullable(),
  }),
  erigon_getHeaderByNumber: method({ params: [OtsBlockNumber], required: 1, result: RpcHeader.nullable() }),
};
