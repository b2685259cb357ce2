import { z } from "zod";
import { Address, Bytes, Hash32, Quantity, Uint64 } from "../schemas.js";
import { method } from "./define.js";
import { OpenResult } from "./results.js";

/** The engine API's `PayloadAttributesV3` (withdrawals and beacon root optional for older forks). */
export const PayloadAttributes = z.object({
  timestamp: Uint64,
  prevRandao: Hash32,
  suggestedFeeRecipient: Address,
  withdrawals: z
    .array(z.object({ index: Uint64, validatorIndex: Uint64, address: Address, amount: Quantity }))
    .optional(),
  parentBeaconBlockRoot: Hash32.optional(),
});

/** The `testing_` namespace: engine-API-adjacent helpers for client testing. */
export const testingMethods = {
  testing_buildBlockV1: method({
    params: [Hash32, PayloadAttributes, z.array(Bytes), Bytes],
    required: 2,
    result: OpenResult,
    summary:
      "Builds (without importing) the block after the head from payload attributes and the given transactions (the pool's when null).",
  }),
};
