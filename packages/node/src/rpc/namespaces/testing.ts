import { toData } from "@strata/protocol";
import { DevOnlyError, ExecutionError } from "../../errors/domain-errors.js";
import { answeredAsJson } from "../raw-json.js";
import { defineMethods } from "../registry.js";

const hexBytes = (hex: string) => Buffer.from(hex.slice(2), "hex");

/**
 * The `testing_` namespace: engine-API-adjacent helpers for client testing. Served on networks with
 * dev accounts, elsewhere only with `--rpc.testing` (-32601 otherwise); builds run on the execution
 * workers under the eth_call time limit.
 */
export const testingMethods = defineMethods({
  testing_buildBlockV1: ([parentHash, attributes, transactions, extraData], services, context) => {
    const { chain, pool, config } = services;
    if (!config.network.devAccounts && !config.rpc.testingMethods) {
      throw new DevOnlyError("testing_buildBlockV1");
    }
    const parent = chain.head;
    if (toData(parent.hash()) !== parentHash.toLowerCase()) {
      throw new ExecutionError("parentHash is not current head");
    }
    const baseFee = parent.header.calcNextBaseFee();
    const built = services.execution.buildBlock(
      parent,
      {
        timestamp: attributes.timestamp,
        prevRandao: hexBytes(attributes.prevRandao),
        suggestedFeeRecipient: hexBytes(attributes.suggestedFeeRecipient),
        ...(attributes.withdrawals ? { withdrawals: attributes.withdrawals } : {}),
        ...(attributes.parentBeaconBlockRoot
          ? { parentBeaconBlockRoot: hexBytes(attributes.parentBeaconBlockRoot) }
          : {}),
      },
      transactions === undefined
        ? { candidates: pool.executable(baseFee).map((entry) => entry.tx) }
        : { given: transactions.map(hexBytes) },
      extraData === undefined ? new Uint8Array() : hexBytes(extraData),
      context,
    );
    return answeredAsJson(built);
  },
});
