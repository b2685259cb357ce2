import { Address } from "@ethereumjs/util";
import { Address as AddressParam, BlockSpec, StorageSlot, toData, toQuantity } from "@strata/protocol";
import { andThen } from "../../maybe-promise.js";
import { defineMethod } from "../../registry.js";
import { requireBlock } from "../../services.js";

function address(hex: string): Address {
  return new Address(Buffer.from(hex.slice(2), "hex"));
}

/** Account state reads at any block (archive): balance, nonce, code, storage. */
export const stateMethods = {
  eth_getBalance: defineMethod({
    params: [AddressParam, BlockSpec],
    required: 1,
    handler: ([who, at], services) =>
      andThen(services.chain.account(requireBlock(services, at), who), (account) =>
        toQuantity(account?.balance ?? 0n),
      ),
  }),
  eth_getTransactionCount: defineMethod({
    params: [AddressParam, BlockSpec],
    required: 1,
    handler: ([who, at], services) =>
      andThen(services.chain.account(requireBlock(services, at), who), (account) => {
        const nonce = account?.nonce ?? 0n;
        const pending = at !== undefined && "tag" in at && at.tag === "pending";
        return toQuantity(pending ? services.pool.pendingNonce(who, nonce) : nonce);
      }),
  }),
  eth_getCode: defineMethod({
    params: [AddressParam, BlockSpec],
    required: 1,
    handler: async ([who, at], services) => {
      const block = requireBlock(services, at);
      return toData(await services.chain.stateAt(block).getCode(address(who)));
    },
  }),
  eth_getStorageAt: defineMethod({
    params: [AddressParam, StorageSlot, BlockSpec],
    required: 2,
    handler: async ([who, slot, at], services) => {
      const block = requireBlock(services, at);
      const key = Buffer.from(slot.toString(16).padStart(64, "0"), "hex");
      const value = await services.chain.stateAt(block).getStorage(address(who), key);
      return toData(leftPad32(value));
    },
  }),
};

function leftPad32(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  out.set(bytes, 32 - bytes.length);
  return out;
}
