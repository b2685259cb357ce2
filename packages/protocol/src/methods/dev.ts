import { z } from "zod";
import { Address, Bool, Bytes, Hash32, Quantity, StorageSlot } from "../schemas.js";
import { method } from "./define.js";
import { BoolResult, HexResult, NullResult, TrueResult } from "./results.js";

/** A number as Hardhat and anvil take it: a JSON number (non-negative integer) or a hex quantity. */
export const DevNumber = z.union([
  z
    .number()
    .int()
    .nonnegative()
    .refine(Number.isSafeInteger, "number too large: give it as a hex quantity")
    .transform((n) => BigInt(n)),
  Quantity,
]);

/** `evm_mine`'s argument: a timestamp, or anvil's `{timestamp?, blocks?}`. */
export const MineOptions = z.union([
  DevNumber.transform((timestamp) => ({ timestamp, blocks: undefined as bigint | undefined })),
  z.object({ timestamp: DevNumber.optional(), blocks: DevNumber.optional() }),
]);

/**
 * `anvil_reset`'s argument: `{forking?: {jsonRpcUrl?, blockNumber?}}`. viem's `reset()` sends
 * `{forking: {blockNumber: null}}` when given nothing: no URL and no block number is no forking.
 */
export const ResetOptions = z
  .object({
    forking: z
      .object({ jsonRpcUrl: z.string().optional(), blockNumber: z.union([DevNumber, z.null()]).optional() })
      .nullable()
      .optional(),
  })
  .nullable();

/**
 * One development control as anvil serves it (answering `null`) and as Hardhat does (answering
 * `true`), with the same parameters.
 */
function anvilAndHardhat<const P extends readonly z.ZodType[], const N extends number>(
  params: P,
  required: N,
) {
  return {
    anvil: method({ params, required, result: NullResult }),
    hardhat: method({ params, required, result: TrueResult }),
  };
}

const mine = anvilAndHardhat([DevNumber, DevNumber], 0);
const setBalance = anvilAndHardhat([Address, DevNumber], 2);
const setNonce = anvilAndHardhat([Address, DevNumber], 2);
const setCode = anvilAndHardhat([Address, Bytes], 2);
const setStorageAt = anvilAndHardhat([Address, StorageSlot, Hash32], 3);
const impersonate = anvilAndHardhat([Address], 1);
const stopImpersonating = anvilAndHardhat([Address], 1);
const reset = anvilAndHardhat([ResetOptions], 0);
/** `evm_snapshot`: the new snapshot's id. */
const snapshot = method({ params: [], required: 0, result: HexResult });
/** `evm_revert(id)`: true once reverted, false for an unknown or used id. */
const revert = method({ params: [DevNumber], required: 1, result: BoolResult });

/**
 * Development-network controls as Hardhat and anvil take them (numbers as JSON numbers or hex
 * quantities): mining and its modes, the clock, account state edits, impersonation, snapshots and
 * reset.
 */
export const devMethods = {
  evm_mine: method({ params: [MineOptions], required: 0, result: HexResult }),
  evm_setNextBlockTimestamp: method({ params: [DevNumber], required: 1, result: NullResult }),
  evm_increaseTime: method({ params: [DevNumber], required: 1, result: z.number() }),
  evm_setAutomine: method({ params: [Bool], required: 1, result: NullResult }),
  evm_setIntervalMining: method({ params: [DevNumber], required: 1, result: NullResult }),
  anvil_mine: mine.anvil,
  hardhat_mine: mine.hardhat,
  anvil_setBalance: setBalance.anvil,
  hardhat_setBalance: setBalance.hardhat,
  anvil_setNonce: setNonce.anvil,
  hardhat_setNonce: setNonce.hardhat,
  anvil_setCode: setCode.anvil,
  hardhat_setCode: setCode.hardhat,
  // anvil answers `true` here, unlike its other setters.
  anvil_setStorageAt: method({ params: setStorageAt.anvil.params, required: 3, result: TrueResult }),
  hardhat_setStorageAt: setStorageAt.hardhat,
  anvil_impersonateAccount: impersonate.anvil,
  hardhat_impersonateAccount: impersonate.hardhat,
  anvil_stopImpersonatingAccount: stopImpersonating.anvil,
  hardhat_stopImpersonatingAccount: stopImpersonating.hardhat,
  evm_snapshot: snapshot,
  anvil_snapshot: snapshot,
  evm_revert: revert,
  anvil_revert: revert,
  anvil_reset: reset.anvil,
  hardhat_reset: reset.hardhat,
};
