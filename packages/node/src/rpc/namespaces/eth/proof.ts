import { createAddressFromString } from "@ethereumjs/util";
import { Address, InvalidParamsError, toData } from "@strata/protocol";
import { ValidationError } from "../../../errors/domain-errors.js";
import { buildAccountProof, MAX_PROOF_KEYS, parseStorageKey } from "../../../execution/state/proof.js";
import { defineMethods } from "../../registry.js";
import { requireBlock } from "../../services.js";

/** At most this many slots in one `eth_getStorageValues` request (geth's limit). */
const MAX_STORAGE_VALUES = 1024;

/** Merkle proofs of accounts and storage (EIP-1186) and batched storage reads. */
export const proofMethods = defineMethods({
  eth_getProof: async ([address, keyTexts, at], services) => {
    if (keyTexts.length > MAX_PROOF_KEYS) {
      throw new InvalidParamsError(
        `too many storage keys requested (max ${MAX_PROOF_KEYS}, got ${keyTexts.length})`,
      );
    }
    const keys = keyTexts.map((text) => {
      const parsed = parseStorageKey(text);
      if (typeof parsed === "string") throw new InvalidParamsError(`${parsed}: ${JSON.stringify(text)}`);
      return parsed;
    });
    const block = requireBlock(services, at);
    return buildAccountProof(services.chain.stateAt(block), createAddressFromString(address), keys);
  },
  eth_getStorageValues: async ([requests, at], services) => {
    const entries = Object.entries(requests).map(([who, slots], i) => {
      const parsed = Address.safeParse(who);
      if (!parsed.success) throw new InvalidParamsError(`invalid argument 0: invalid address at key ${i}`);
      return [parsed.data, slots] as const;
    });
    let total = 0;
    for (const [, slots] of entries) {
      total += slots.length;
      if (total > MAX_STORAGE_VALUES) {
        throw new ValidationError("clientLimitExceeded", `too many slots (max ${MAX_STORAGE_VALUES})`);
      }
    }
    if (total === 0) throw new InvalidParamsError("empty request");
    const state = services.chain.stateAt(requireBlock(services, at));
    const result: Record<string, string[]> = {};
    for (const [who, slots] of entries) {
      const address = createAddressFromString(who);
      const values: string[] = [];
      for (const slot of slots) {
        const value = await state.getStorage(address, Buffer.from(slot.slice(2), "hex"));
        const padded = new Uint8Array(32);
        padded.set(value, 32 - value.length);
        values.push(toData(padded));
      }
      result[who] = values;
    }
    return result;
  },
});
