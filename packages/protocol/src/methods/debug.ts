import { z } from "zod";
import { HexText } from "../objects/hex-text.js";
import { BlockNumberOrTag, BlockSpec, CallRequest, Hash32 } from "../schemas.js";
import { method } from "./define.js";
import { HexOrNull, NullResult, OpenResult } from "./results.js";
import { TraceCallConfig, TraceConfig } from "./trace-params.js";

/** geth's `debug_` namespace: raw consensus encodings and tracing (trace shapes depend on the tracer). */
export const debugMethods = {
  debug_getRawHeader: method({
    params: [BlockSpec],
    required: 1,
    result: HexOrNull,
    summary: "Returns the RLP encoding of a block header.",
  }),
  debug_getRawBlock: method({
    params: [BlockSpec],
    required: 1,
    result: HexOrNull,
    summary: "Returns the RLP encoding of a block.",
  }),
  debug_getRawReceipts: method({
    params: [BlockSpec],
    required: 1,
    result: z.array(HexText).nullable(),
    summary: "Returns the consensus encodings of a block's receipts.",
  }),
  debug_getRawTransaction: method({
    params: [Hash32],
    required: 1,
    result: HexOrNull,
    summary: "Returns the encoding of a transaction, mined or pending.",
  }),
  debug_getRawBlockAccessList: method({
    params: [BlockSpec],
    required: 1,
    result: NullResult,
    summary: "Returns the RLP encoding of a block's EIP-7928 access list (none are kept).",
  }),
  debug_getBadBlocks: method({
    params: [],
    required: 0,
    result: z.array(z.never()),
    summary: "Returns the invalid blocks seen (always none: invalid blocks are never stored).",
  }),
  debug_traceTransaction: method({ params: [Hash32, TraceConfig], required: 1, result: OpenResult }),
  debug_traceCall: method({
    params: [CallRequest, BlockSpec, TraceCallConfig],
    required: 2,
    result: OpenResult,
  }),
  debug_traceBlockByNumber: method({
    params: [BlockNumberOrTag, TraceConfig],
    required: 1,
    result: OpenResult,
  }),
  debug_traceBlockByHash: method({ params: [Hash32, TraceConfig], required: 1, result: OpenResult }),
};
