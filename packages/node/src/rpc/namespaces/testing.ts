import { Address, Bytes, Hash32, Quantity, toData, Uint64 } from "@strata/protocol";
import { z } from "zod";
import { DevOnlyError, ExecutionError } from "../../errors/domain-errors.js";
import { defineMethod } from "../registry.js";

/** The engine API's `PayloadAttributesV3` (withdrawals and beacon root optional for older forks). */
const PayloadAttributes = z.object({
  timestamp: Uint64,
  prevRandao: Hash32,
  suggestedFeeRecipient: Address,
  withdrawals: z
    .array(z.object({ index: Uint64, validatorIndex: Uint64, address: Address, amount: Quantity }))
    .optional(),
  parentBeaconBlockRoot: Hash32.optional(),
});

const hexBytes = (hex: string) => Buffer.from(hex.slice(2), "hex");

/**
 * The `testing_` namespace: engine-API-adjacent helpers for client testing. Served on networks with
 * dev accounts, elsewhere only with `--rpc.testing` (-32601 otherwise); builds run on the execution
 * workers under the eth_call time limit.
 */
export const testingMethods = {
  testing_buildBlockV1: defineMethod({
    params: [Hash32, PayloadAttributes, z.array(Bytes), Bytes],
    required: 2,
    summary:
      "Builds (without importing) the block after the head from payload attributes and the given transactions (the pool's when null).",
    handler: ([parentHash, attributes, transactions, extraData], services, context) => {
      const { chain, pool, config } = services;
      if (!config.network.devAccounts && !config.rpc.testingMethods) {
        throw new DevOnlyError("testing_buildBlockV1");
      }
      const parent = chain.head;
      if (toData(parent.hash()) !== parentHash.toLowerCase()) {
        throw new ExecutionError("parentHash is not current head");
      }
      const baseFee = parent.header.calcNextBaseFee();
      return services.execution.buildBlock(
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
    },
  }),
};
