import { BlockSpec, CallRequest, toData, toQuantity } from "@strata/protocol";
import { defineMethod } from "../../registry.js";
import { requireBlock } from "../../services.js";

/** Read-only execution: calls, gas estimates and access lists. */
export const executeMethods = {
  eth_call: defineMethod({
    params: [CallRequest, BlockSpec],
    required: 1,
    handler: async ([request, at], services) => {
      return toData(await services.calls.call(request, requireBlock(services, at)));
    },
  }),
  eth_estimateGas: defineMethod({
    params: [CallRequest, BlockSpec],
    required: 1,
    handler: async ([request, at], services) =>
      toQuantity(await services.calls.estimateGas(request, requireBlock(services, at))),
  }),
  eth_createAccessList: defineMethod({
    params: [CallRequest, BlockSpec],
    required: 1,
    handler: async ([request, at], services) => {
      const outcome = await services.calls.createAccessList(request, requireBlock(services, at));
      return {
        accessList: outcome.accessList,
        gasUsed: toQuantity(outcome.gasUsed),
        ...(outcome.error ? { error: outcome.error } : {}),
      };
    },
  }),
};
