import { BlockSpec, CallRequest, toData, toQuantity } from "@strata/protocol";
import { defineMethod } from "../../registry.js";
import { callBlock } from "../../services.js";

/** Read-only execution: calls, gas estimates and access lists. */
export const executeMethods = {
  eth_call: defineMethod({
    params: [CallRequest, BlockSpec],
    required: 1,
    handler: async ([request, at], services, context) =>
      toData(await services.calls.call(request, await callBlock(services, at), context)),
  }),
  eth_estimateGas: defineMethod({
    params: [CallRequest, BlockSpec],
    required: 1,
    handler: async ([request, at], services, context) =>
      // Without a tag: the block the transaction lands in (DECISIONS.md "Block tags").
      toQuantity(await services.calls.estimateGas(request, await callBlock(services, at, true), context)),
  }),
  eth_createAccessList: defineMethod({
    params: [CallRequest, BlockSpec],
    required: 1,
    handler: async ([request, at], services, context) => {
      const outcome = await services.calls.createAccessList(request, await callBlock(services, at), context);
      return {
        accessList: outcome.accessList,
        gasUsed: toQuantity(outcome.gasUsed),
        ...(outcome.error ? { error: outcome.error } : {}),
      };
    },
  }),
};
