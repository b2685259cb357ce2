import type { StateManagerInterface } from "@ethereumjs/common";
import { Account, createAddressFromString, hexToBytes } from "@ethereumjs/util";
import type { StateOverrides } from "@strata/protocol";
import { ExecutionError } from "../../errors/domain-errors.js";

const bytes = (hex: string) => hexToBytes(hex as `0x${string}`);

/**
 * Applies `debug_traceCall`'s state overrides to a throwaway state, as geth does: nonce, balance and
 * code replace the account's; `state` replaces all of its storage, `stateDiff` single slots (not
 * both). Moving precompiles is not supported here.
 */
export async function applyTraceOverrides(
  state: StateManagerInterface,
  overrides: StateOverrides | undefined,
): Promise<void> {
  for (const [address, override] of Object.entries(overrides ?? {})) {
    if (override.movePrecompileToAddress !== undefined) {
      throw new ExecutionError("movePrecompileToAddress is not supported by debug_traceCall");
    }
    if (override.state !== undefined && override.stateDiff !== undefined) {
      throw new ExecutionError(`account ${address} has both 'state' and 'stateDiff'`);
    }
    const who = createAddressFromString(address);
    const account = (await state.getAccount(who)) ?? new Account();
    if (override.nonce !== undefined) account.nonce = override.nonce;
    if (override.balance !== undefined) account.balance = override.balance;
    await state.putAccount(who, account);
    if (override.code !== undefined) await state.putCode(who, bytes(override.code));
    if (override.state !== undefined) await state.clearStorage(who);
    for (const [slot, value] of Object.entries(override.state ?? override.stateDiff ?? {})) {
      await state.putStorage(who, bytes(slot), bytes(value));
    }
  }
}
