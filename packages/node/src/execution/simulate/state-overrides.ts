import type { EVM, PrecompileFunc } from "@ethereumjs/evm";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { Account, createAddressFromString, hexToBytes } from "@ethereumjs/util";
import type { StateOverrides } from "@strata/protocol";
import { ExecutionError } from "../../errors/domain-errors.js";

function slotBytes(hex: string): Uint8Array {
  return hexToBytes(hex as `0x${string}`);
}

/** A precompile map key as @ethereumjs/evm keeps them: the address in lowercase hex without `0x`. */
function precompileKey(address: string): string {
  return address.slice(2).toLowerCase();
}

/**
 * Keeps the fork's own precompile addresses the ones every transaction starts with warm (EIP-2929),
 * whatever the overrides do to `precompiles`: geth warms the active precompiles of the block's
 * rules, so a precompile moved away stays warm at its old address and is cold at its new one. The
 * VM warms the addresses `precompiles.entries()` yields and looks precompiles up with `get`.
 */
function keepForkPrecompilesWarm(precompiles: Map<string, PrecompileFunc>): void {
  const forkAddresses = [...precompiles.keys()];
  precompiles.entries = function* () {
    for (const key of forkAddresses) yield [key, precompiles.get(key) as PrecompileFunc];
  } as typeof precompiles.entries;
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
  keepForkPrecompilesWarm(precompiles);
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
    const { nonce, balance, code, state: storage, stateDiff } = override;
    if (storage !== undefined && stateDiff !== undefined) {
      throw new ExecutionError(`account ${address} has both 'state' and 'stateDiff'`);
    }
    // An override that changes nothing of the account (only moves a precompile) leaves it untouched.
    const changes = [nonce, balance, code, storage, stateDiff].some((field) => field !== undefined);
    if (!changes) continue;
    const who = createAddressFromString(address);
    const account = (await state.getAccount(who)) ?? new Account();
    if (nonce !== undefined) account.nonce = nonce;
    if (balance !== undefined) account.balance = balance;
    await state.putAccount(who, account);
    if (code !== undefined) await state.putCode(who, slotBytes(code));
    if (storage !== undefined) {
      await state.clearStorage(who);
      for (const [slot, value] of Object.entries(storage)) {
        await state.putStorage(who, slotBytes(slot), slotBytes(value));
      }
    }
    for (const [slot, value] of Object.entries(stateDiff ?? {})) {
      await state.putStorage(who, slotBytes(slot), slotBytes(value));
    }
  }
  await state.flush();
}
