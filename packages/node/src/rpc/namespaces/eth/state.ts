import { Address } from "@ethereumjs/util";
import type { BlockSelector } from "@strata/protocol";
import { toData, toQuantity } from "@strata/protocol";
import type { PendingRead } from "../../../producer/pending-block.js";
import { andThen } from "../../maybe-promise.js";
import { defineMethods } from "../../registry.js";
import { isPending, type RpcServices, requireBlock } from "../../services.js";

function address(hex: string): Address {
  return new Address(Buffer.from(hex.slice(2), "hex"));
}

/**
 * `read` in the state after the pending block when it changes anything (executable pool
 * transactions, queued dev edits; made on an execution worker when the node has them); undefined
 * when reads at `selector` go to a stored block (the head, for an empty pending block).
 */
function pendingRead(
  services: RpcServices,
  selector: BlockSelector | undefined,
  read: PendingRead,
): Promise<bigint | Uint8Array> | undefined {
  if (!isPending(selector) || services.pending.isEmpty) return undefined;
  return services.pending.read(read);
}

/** Account state reads at any block (archive): balance, nonce, code, storage. */
export const stateMethods = defineMethods({
  eth_getBalance: ([who, at], services) => {
    const pending = pendingRead(services, at, { kind: "balance", address: who });
    if (pending) return pending.then((balance) => toQuantity(balance as bigint));
    return andThen(services.chain.account(requireBlock(services, at), who), (account) =>
      toQuantity(account?.balance ?? 0n),
    );
  },
  eth_getTransactionCount: ([who, at], services) => {
    const pending = isPending(at);
    // A queued anvil_setNonce shows in the pending state; otherwise the pool counts on the head's nonce.
    if (pending && !services.producer.edits.isEmpty) {
      return services.pending.read({ kind: "nonce", address: who }).then((n) => toQuantity(n as bigint));
    }
    return andThen(services.chain.account(requireBlock(services, at), who), (account) => {
      const nonce = account?.nonce ?? 0n;
      return toQuantity(pending ? services.pool.pendingNonce(who, nonce) : nonce);
    });
  },
  eth_getCode: async ([who, at], services) => {
    const pending = pendingRead(services, at, { kind: "code", address: who });
    if (pending) return toData((await pending) as Uint8Array);
    return toData(await services.chain.stateAt(requireBlock(services, at)).getCode(address(who)));
  },
  eth_getStorageAt: async ([who, slot, at], services) => {
    const key = Buffer.from(slot.toString(16).padStart(64, "0"), "hex");
    const pending = pendingRead(services, at, { kind: "storage", address: who, slot: key });
    const value = pending
      ? ((await pending) as Uint8Array)
      : await services.chain.stateAt(requireBlock(services, at)).getStorage(address(who), key);
    return toData(leftPad32(value));
  },
});

function leftPad32(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  out.set(bytes, 32 - bytes.length);
  return out;
}
