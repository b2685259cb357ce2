import { BlockSpec, toData, toQuantity } from "@strata/protocol";
import { formatLogsOf } from "../../../chain/log-format.js";
import { ChainView } from "../../../execution/chain-view.js";
import { SimulateOptions } from "../../../execution/simulate/params.js";
import { type SimulatedBlock, Simulator } from "../../../execution/simulate/simulator.js";
import { formatBlock } from "../../format/block.js";
import { defineMethod } from "../../registry.js";
import { type RpcServices, requireBlock } from "../../services.js";

function simulator(services: RpcServices): Simulator {
  const { chain, config } = services;
  return new Simulator({
    common: chain.common,
    chainView: new ChainView(chain.store),
    stateAt: (block) => chain.stateAt(block),
    gasCap: config.rpc.gasCap,
    timeoutMs: config.rpc.evmTimeoutMs,
  });
}

/** A simulated block as geth answers it: the block object plus `calls`, each call's outcome. */
function formatSimulatedBlock(simulated: SimulatedBlock, fullTransactions: boolean) {
  const { block, calls, receipts } = simulated;
  const logs = formatLogsOf(block, receipts);
  return {
    ...formatBlock(block, fullTransactions, receipts),
    calls: calls.map((call, i) => {
      const index = toQuantity(i);
      return {
        returnData: toData(call.returnData),
        // geth numbers a call's logs among all logs emitted in the block, kept or not.
        logs: logs
          .filter((log) => log.transactionIndex === index)
          .map((log, j) => ({ ...log, logIndex: toQuantity(call.logs[j]?.index ?? 0) })),
        gasUsed: toQuantity(call.gasUsed),
        maxUsedGas: toQuantity(call.maxUsedGas),
        status: toQuantity(call.status),
        ...(call.error ? { error: call.error } : {}),
      };
    }),
  };
}

/** `eth_simulateV1`: calls in simulated blocks on top of a block, with block and state overrides. */
export const simulateMethods = {
  eth_simulateV1: defineMethod({
    params: [SimulateOptions, BlockSpec],
    required: 1,
    summary: "Executes calls in simulated blocks on top of a block, with block and state overrides.",
    handler: async ([options, at], services) => {
      const base = requireBlock(services, at);
      const blocks = await simulator(services).simulate(options, base);
      return blocks.map((simulated) =>
        formatSimulatedBlock(simulated, options.returnFullTransactions === true),
      );
    },
  }),
};
