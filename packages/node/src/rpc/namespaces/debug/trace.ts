import type { Block } from "@ethereumjs/block";
import type { TraceOptions } from "@strata/protocol";
import { ExecutionError, NotFoundError } from "../../../errors/domain-errors.js";
import { answeredAsJson } from "../../raw-json.js";
import { defineMethods, type RpcContext } from "../../registry.js";
import { findBlock, type RpcServices } from "../../services.js";

const NO_OPTIONS: TraceOptions = {};

/** A block trace; genesis (which has no parent to replay on) is refused here. */
function traceBlock(services: RpcServices, block: Block, options: TraceOptions, context: RpcContext) {
  if (block.header.number === 0n) throw new ExecutionError("genesis is not traceable");
  return answeredAsJson(services.execution.traceBlock(block, options, context));
}

/** geth's tracing methods: `debug_traceTransaction`, `debug_traceCall`, `debug_traceBlockByNumber/ByHash`. */
export const debugTraceMethods = defineMethods({
  debug_traceTransaction: ([hash, options], services, context) =>
    answeredAsJson(
      services.execution.traceTransaction(Buffer.from(hash.slice(2), "hex"), options ?? NO_OPTIONS, context),
    ),
  debug_traceCall: ([request, at, config], services, context) => {
    if ("tag" in at && at.tag === "pending") {
      throw new ExecutionError("tracing on top of pending is not supported");
    }
    const block = findBlock(services, at);
    if (!block) throw new NotFoundError("header not found");
    return answeredAsJson(
      services.execution.traceCall(
        request,
        block,
        config?.options ?? NO_OPTIONS,
        config?.stateOverrides ?? undefined,
        context,
      ),
    );
  },
  debug_traceBlockByNumber: ([at, options], services, context) => {
    const block = findBlock(services, at);
    // Tags always resolve (to the head or genesis); only a number can name a missing block.
    if (!block) throw new NotFoundError(`block #${"number" in at ? at.number : ""} not found`);
    return traceBlock(services, block, options ?? NO_OPTIONS, context);
  },
  debug_traceBlockByHash: ([hash, options], services, context) => {
    const block = services.chain.blockByHash(Buffer.from(hash.slice(2), "hex"));
    if (!block) throw new NotFoundError(`block ${hash} not found`);
    return traceBlock(services, block, options ?? NO_OPTIONS, context);
  },
});
