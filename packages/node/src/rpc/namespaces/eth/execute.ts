import { toData, toQuantity } from "@strata/protocol";
import { defineMethods } from "../../registry.js";
import { callBlock } from "../../services.js";

/** Read-only execution: calls, gas estimates and access lists. */
export const executeMethods = defineMethods({
  eth_call: async ([request, at], services, context) =>
    toData(await services.calls.call(request, await callBlock(services, at), context)),
  eth_estimateGas: async ([request, at], services, context) =>
    // Without a tag: the block the transaction lands in (DECISIONS.md "Block tags").
    toQuantity(await services.calls.estimateGas(request, await callBlock(services, at, true), context)),
  eth_createAccessList: async ([request, at], services, context) => {
    const outcome = await services.calls.createAccessList(request, await callBlock(services, at), context);
    return {
      accessList: outcome.accessList,
      gasUsed: toQuantity(outcome.gasUsed),
      ...(outcome.error ? { error: outcome.error } : {}),
    };
  },
});
