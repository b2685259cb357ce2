import { answeredAsJson } from "../../raw-json.js";
import { defineMethods } from "../../registry.js";
import { requireBlock } from "../../services.js";

/** `eth_simulateV1`: calls in simulated blocks on top of a block, with block and state overrides. */
export const simulateMethods = defineMethods({
  eth_simulateV1: ([options, at], services, context) =>
    answeredAsJson(services.execution.simulate(options, requireBlock(services, at), context)),
});
