import { BlockSpec } from "@strata/protocol";
import { SimulateOptions } from "../../../execution/simulate/params.js";
import { defineMethod } from "../../registry.js";
import { requireBlock } from "../../services.js";

/** `eth_simulateV1`: calls in simulated blocks on top of a block, with block and state overrides. */
export const simulateMethods = {
  eth_simulateV1: defineMethod({
    params: [SimulateOptions, BlockSpec],
    required: 1,
    summary: "Executes calls in simulated blocks on top of a block, with block and state overrides.",
    handler: ([options, at], services, context) =>
      services.execution.simulate(options, requireBlock(services, at), context),
  }),
};
