import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { Address } from "@ethereumjs/util";
import type { BlockSelector } from "@strata/protocol";
import { Address as AddressParam, BlockSpec, StorageSlot, toData, toQuantity } from "@strata/protocol";
import { andThen } from "../../maybe-promise.js";
import { defineMethod } from "../../registry.js";
import { isPending, type RpcServices, requireBlock } from "../../services.js";

function address(hex: string): Address {
  return new Address(Buffer.from(hex.slice(2), "hex"));
}

/**
 * The state after the pending block when it changes anything (executable pool transactions, queued
 * dev edits); undefined when reads at `selector` go to a stored block (the head, for an empty pending).
 */
async function pendingState(
  services: RpcServices,
  selector: BlockSelector | undefined,
): Promise<MerkleStateManager | undefined> {
  if (!isPending(selector) || services.pending.isEmpty) return undefined;
  return (await services.pending.built()).state;
}

async function stateFor(services: RpcServices, selector: BlockSelector | undefined) {
  return (await pendingState(services, selector)) ?? services.chain.stateAt(requireBlock(services, selector));
}

/** Account state reads at any block (archive): balance, nonce, code, storage. */
export const stateMethods = {
  eth_getBalance: defineMethod({
    params: [AddressParam, BlockSpec],
    required: 1,
    handler: ([who, at], services) => {
      if (isPending(at) && !services.pending.isEmpty) {
        return pendingState(services, at).then(async (state) =>
          toQuantity((await state!.getAccount(address(who)))?.balance ?? 0n),
        );
      }
      return andThen(services.chain.account(requireBlock(services, at), who), (account) =>
        toQuantity(account?.balance ?? 0n),
      );
    },
  }),
  eth_getTransactionCount: defineMethod({
    params: [AddressParam, BlockSpec],
    required: 1,
    handler: ([who, at], services) => {
      const pending = isPending(at);
      // A queued anvil_setNonce shows in the pending state; otherwise the pool counts on the head's nonce.
      if (pending && !services.producer.edits.isEmpty) {
        return pendingState(services, at).then(async (state) =>
          toQuantity((await state!.getAccount(address(who)))?.nonce ?? 0n),
        );
      }
      return andThen(services.chain.account(requireBlock(services, at), who), (account) => {
        const nonce = account?.nonce ?? 0n;
        return toQuantity(pending ? services.pool.pendingNonce(who, nonce) : nonce);
      });
    },
  }),
  eth_getCode: defineMethod({
    params: [AddressParam, BlockSpec],
    required: 1,
    handler: async ([who, at], services) => {
      return toData(await (await stateFor(services, at)).getCode(address(who)));
    },
  }),
  eth_getStorageAt: defineMethod({
    params: [AddressParam, StorageSlot, BlockSpec],
    required: 2,
    handler: async ([who, slot, at], services) => {
      const key = Buffer.from(slot.toString(16).padStart(64, "0"), "hex");
      const value = await (await stateFor(services, at)).getStorage(address(who), key);
      return toData(leftPad32(value));
    },
  }),
};

function leftPad32(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  out.set(bytes, 32 - bytes.length);
  return out;
}
