import { z } from "zod";
import { Address, Bool, Bytes, CallRequest, Hash32, Quantity, Uint64 } from "../schemas.js";

/** A withdrawal credited at the end of a simulated block (amount in gwei). */
const Withdrawal = z.object({ index: Uint64, validatorIndex: Uint64, address: Address, amount: Quantity });

/** `BlockOverrides` of `eth_simulateV1`: header fields a simulated block takes instead of the defaults. */
export const BlockOverrides = z.object({
  number: Quantity.optional(),
  difficulty: Quantity.optional(),
  time: Uint64.optional(),
  gasLimit: Uint64.optional(),
  feeRecipient: Address.optional(),
  prevRandao: Hash32.optional(),
  baseFeePerGas: Quantity.optional(),
  blobBaseFee: Quantity.optional(),
  beaconRoot: Hash32.optional(),
  withdrawals: z.array(Withdrawal).optional(),
});
/** Decoded block overrides. */
export type BlockOverrides = z.output<typeof BlockOverrides>;

/** One account's override: replaced fields, and either a whole new storage or changed slots. */
const AccountOverride = z.object({
  nonce: Uint64.optional(),
  balance: Quantity.optional(),
  code: Bytes.optional(),
  state: z.record(Hash32, Hash32).optional(),
  stateDiff: z.record(Hash32, Hash32).optional(),
  movePrecompileToAddress: Address.optional(),
});
/** Decoded account override. */
export type AccountOverride = z.output<typeof AccountOverride>;

/** `StateOverrides`: account overrides by address. */
export const StateOverrides = z.record(Address, AccountOverride);
/** Decoded state overrides. */
export type StateOverrides = z.output<typeof StateOverrides>;

/** One simulated block: its overrides and the calls it runs in order. */
const BlockStateCall = z.object({
  blockOverrides: BlockOverrides.optional(),
  stateOverrides: StateOverrides.optional(),
  calls: z.array(CallRequest).optional(),
});
/** A decoded simulated block request. */
export type BlockStateCall = z.output<typeof BlockStateCall>;

/** The first parameter of `eth_simulateV1`. */
export const SimulateOptions = z.object({
  blockStateCalls: z.array(BlockStateCall),
  traceTransfers: Bool.optional(),
  validation: Bool.optional(),
  returnFullTransactions: Bool.optional(),
});
/** Decoded `eth_simulateV1` options. */
export type SimulateOptions = z.output<typeof SimulateOptions>;
