import type { Block } from "@ethereumjs/block";
import { BlockNumberOrTag, BlockSpec, CallRequest, Hash32 } from "@strata/protocol";
import { z } from "zod";
import { ExecutionError, NotFoundError } from "../../../errors/domain-errors.js";
import { StateOverrides } from "../../../execution/simulate/params.js";
import type { TraceOptions } from "../../../execution/tracing/trace-options.js";
import { defineMethod, type RpcContext } from "../../registry.js";
import { findBlock, type RpcServices } from "../../services.js";

const traceConfigFields = {
  tracer: z.string().nullish(),
  tracerConfig: z.record(z.string(), z.unknown()).nullish(),
  timeout: z.string().nullish(),
  disableStack: z.boolean().nullish(),
  disableStorage: z.boolean().nullish(),
  enableMemory: z.boolean().nullish(),
  enableReturnData: z.boolean().nullish(),
  limit: z.number().int().nonnegative().nullish(),
};

/** The options present in a decoded config (Go's decoder treats null like an absent field). */
function present(config: Record<string, unknown>): TraceOptions {
  const options: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config))
    if (value !== null && value !== undefined) options[key] = value;
  return options as TraceOptions;
}

/** geth's `TraceConfig` (unknown fields are ignored, as Go's decoder does). */
const TraceConfig = z.object(traceConfigFields).transform(present);

/** geth's `TraceCallConfig`: a `TraceConfig` plus state overrides. */
const TraceCallConfig = z
  .object({ ...traceConfigFields, stateOverrides: StateOverrides.nullish() })
  .transform(({ stateOverrides, ...config }) => ({ options: present(config), stateOverrides }));

const NO_OPTIONS: TraceOptions = {};

/** A block trace; genesis (which has no parent to replay on) is refused here. */
function traceBlock(services: RpcServices, block: Block, options: TraceOptions, context: RpcContext) {
  if (block.header.number === 0n) throw new ExecutionError("genesis is not traceable");
  return services.execution.traceBlock(block, options, context);
}

/** geth's tracing methods: `debug_traceTransaction`, `debug_traceCall`, `debug_traceBlockByNumber/ByHash`. */
export const debugTraceMethods = {
  debug_traceTransaction: defineMethod({
    params: [Hash32, TraceConfig],
    required: 1,
    handler: ([hash, options], services, context) =>
      services.execution.traceTransaction(Buffer.from(hash.slice(2), "hex"), options ?? NO_OPTIONS, context),
  }),
  debug_traceCall: defineMethod({
    params: [CallRequest, BlockSpec, TraceCallConfig],
    required: 2,
    handler: ([request, at, config], services, context) => {
      if ("tag" in at && at.tag === "pending") {
        throw new ExecutionError("tracing on top of pending is not supported");
      }
      const block = findBlock(services, at);
      if (!block) throw new NotFoundError("header not found");
      return services.execution.traceCall(
        request,
        block,
        config?.options ?? NO_OPTIONS,
        config?.stateOverrides ?? undefined,
        context,
      );
    },
  }),
  debug_traceBlockByNumber: defineMethod({
    params: [BlockNumberOrTag, TraceConfig],
    required: 1,
    handler: ([at, options], services, context) => {
      const block = findBlock(services, at);
      // Tags always resolve (to the head or genesis); only a number can name a missing block.
      if (!block) throw new NotFoundError(`block #${"number" in at ? at.number : ""} not found`);
      return traceBlock(services, block, options ?? NO_OPTIONS, context);
    },
  }),
  debug_traceBlockByHash: defineMethod({
    params: [Hash32, TraceConfig],
    required: 1,
    handler: ([hash, options], services, context) => {
      const block = services.chain.blockByHash(Buffer.from(hash.slice(2), "hex"));
      if (!block) throw new NotFoundError(`block ${hash} not found`);
      return traceBlock(services, block, options ?? NO_OPTIONS, context);
    },
  }),
};
