import { InvalidParamsError, Quantity } from "@strata/protocol";
import { DevOnlyError } from "../../errors/domain-errors.js";
import { defineMethod } from "../registry.js";
import type { RpcServices } from "../services.js";

function requireDev(services: RpcServices, method: string): void {
  if (!services.config.network.devAccounts) throw new DevOnlyError(method);
}

/** Development-network controls (`evm_mine`, `anvil_mine`, next timestamp); absent elsewhere. */
export const devMethods = {
  evm_mine: defineMethod({
    params: [Quantity],
    required: 0,
    handler: async ([timestamp], services) => {
      requireDev(services, "evm_mine");
      if (timestamp !== undefined) services.producer.setNextTimestamp(timestamp);
      await services.producer.mine(1);
      return "0x0";
    },
  }),
  anvil_mine: defineMethod({
    params: [Quantity, Quantity],
    required: 0,
    handler: async ([count], services) => {
      requireDev(services, "anvil_mine");
      const blocks = count ?? 1n;
      if (blocks > 10_000n) throw new InvalidParamsError("invalid argument 0: at most 10000 blocks per call");
      await services.producer.mine(Number(blocks));
      return null;
    },
  }),
  evm_setNextBlockTimestamp: defineMethod({
    params: [Quantity],
    required: 1,
    handler: ([timestamp], services) => {
      requireDev(services, "evm_setNextBlockTimestamp");
      services.producer.setNextTimestamp(timestamp);
      return null;
    },
  }),
};
