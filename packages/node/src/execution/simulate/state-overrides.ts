import type { EVM, PrecompileFunc } from "@ethereumjs/evm";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { Account, createAddressFromString, hexToBytes } from "@ethereumjs/util";
import { ExecutionError } from "../../errors/domain-errors.js";
import type { StateOverrides } from "./params.js";

function slotBytes(hex: string): Uint8Array {
  return hexToBytes(hex as `0x${string}`);
}

/** A precompile map key as @ethereumjs/evm keeps them: the address in lowercase hex without `0x`. */
function precompileKey(address: string): string {
  return address.slice(2).toLowerCase();
}

/**
 * Applies state overrides as geth does before a simulated block: nonce, code and balance replace the
 * account's; `state` replaces all storage and `stateDiff` changes single slots (not both);
 * `movePrecompileToAddress` serves a precompile at another address, and an overridden precompile
 * address stops being a precompile. Problems are geth's plain errors (-32000).
 */
export async function applyStateOverrides(
  state: MerkleStateManager,
  evm: EVM,
  overrides: StateOverrides | undefined,
): Promise<void> {
  if (!overrides) return;
  const precompiles = evm.precompiles;
  const moved = new Set<string>();
  for (const [address, override] of Object.entries(overrides)) {
    const key = precompileKey(address);
    if (moved.has(key))
      throw new ExecutionError(`account ${address} has already been overridden by a precompile`);
    const precompile: PrecompileFunc | undefined = precompiles.get(key);
    if (override.movePrecompileToAddress !== undefined) {
      if (!precompile) throw new ExecutionError(`account ${address} is not a precompile`);
      const target = override.movePrecompileToAddress;
      if (Object.hasOwn(overrides, target))
        throw new ExecutionError(`account ${target} is already overridden`);
      precompiles.set(precompileKey(target), precompile);
      moved.add(precompileKey(target));
    }
    if (precompile) precompiles.delete(key);
    if (override.state !== undefined && override.stateDiff !== undefined) {
      throw new ExecutionError(`account ${address} has both 'state' and 'stateDiff'`);
    }
    const who = createAddressFromString(address);
    const account = (await state.getAccount(who)) ?? new Account();
    if (override.nonce !== undefined) account.nonce = override.nonce;
    if (override.balance !== undefined) account.balance = override.balance;
    await state.putAccount(who, account);
    if (override.code !== undefined) await state.putCode(who, slotBytes(override.code));
    if (override.state !== undefined) {
      await state.clearStorage(who);
      for (const [slot, value] of Object.entries(override.state)) {
        await state.putStorage(who, slotBytes(slot), slotBytes(value));
      }
    }
    for (const [slot, value] of Object.entries(override.stateDiff ?? {})) {
      await state.putStorage(who, slotBytes(slot), slotBytes(value));
    }
  }
  await state.flush();
}
