import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { Caches, MerkleStateManager } from "@ethereumjs/statemanager";
import { Account, type Address, bytesToHex, createAddressFromString } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { DecodedAccountStateManager } from "./decoded-account-cache.js";
import { createStateCaches } from "./state-caches.js";

const addresses: Address[] = Array.from({ length: 12 }, (_, i) =>
  createAddressFromString(`0x${(i + 1).toString(16).padStart(40, "0")}`),
);

/** A deterministic pseudo-random sequence (xorshift). */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

type State = MerkleStateManager;

/** Runs the same random account, storage and code changes, checkpoints, reverts and commits on each state. */
async function applySameChanges(states: State[], seed: number): Promise<void> {
  const next = random(seed);
  let depth = 0;
  for (let step = 0; step < 400; step++) {
    const address = addresses[Math.floor(next() * addresses.length)]!;
    const op = next();
    for (const state of states) {
      if (op < 0.35) {
        const account = (await state.getAccount(address)) ?? new Account();
        account.balance += BigInt(step + 1);
        account.nonce += 1n;
        await state.putAccount(address, account);
      } else if (op < 0.45) {
        await state.deleteAccount(address);
      } else if (op < 0.6) {
        if ((await state.getAccount(address)) === undefined) await state.putAccount(address, new Account());
        const key = new Uint8Array(32);
        key[31] = step % 5;
        await state.putStorage(address, key, Uint8Array.of(step & 0xff, 1));
      } else if (op < 0.65) {
        await state.putCode(address, Uint8Array.of(0x60, step & 0xff, 0x00));
      } else if (op < 0.78) {
        await state.checkpoint();
      } else if (op < 0.88 && depth > 0) {
        await state.revert();
      } else if (depth > 0) {
        await state.commit();
      }
    }
    if (op >= 0.65 && op < 0.78) depth++;
    else if (op >= 0.78 && depth > 0) depth--;
  }
  for (const state of states) for (let i = 0; i < depth; i++) await state.commit();
}

function decodedState(kind: "map" | "lru"): State {
  return new DecodedAccountStateManager({
    trie: new MerklePatriciaTrie({ useKeyHashing: true }),
    caches: createStateCaches(kind),
  });
}

describe("decoded account caches", () => {
  it("end in the same state root and accounts as the stock cached state manager, through checkpoints and reverts", async () => {
    for (const seed of [1, 7, 42, 1234]) {
      const reference = new MerkleStateManager({ caches: new Caches() });
      const map = decodedState("map");
      const lru = decodedState("lru");
      await applySameChanges([reference, map, lru], seed);
      const root = bytesToHex(await reference.getStateRoot());
      expect(bytesToHex(await map.getStateRoot())).toBe(root);
      expect(bytesToHex(await lru.getStateRoot())).toBe(root);
      for (const address of addresses) {
        const expected = await reference.getAccount(address);
        for (const state of [map, lru]) {
          const account = await state.getAccount(address);
          expect(account === undefined ? undefined : bytesToHex(account.serialize())).toBe(
            expected === undefined ? undefined : bytesToHex(expected.serialize()),
          );
        }
      }
    }
  });

  it("hands out copies: changing a returned or a stored account object changes no state", async () => {
    const state = decodedState("map");
    const address = addresses[0]!;
    const stored = new Account(1n, 100n);
    await state.putAccount(address, stored);
    stored.balance = 5n;
    const read = await state.getAccount(address);
    expect(read?.balance).toBe(100n);
    read!.balance = 7n;
    expect((await state.getAccount(address))?.balance).toBe(100n);
  });

  it("restores the value put before a checkpoint when it is reverted", async () => {
    const state = decodedState("map");
    const address = addresses[1]!;
    await state.putAccount(address, new Account(0n, 10n));
    await state.checkpoint();
    await state.putAccount(address, new Account(1n, 20n));
    await state.deleteAccount(addresses[2]!);
    await state.revert();
    expect((await state.getAccount(address))?.balance).toBe(10n);
    await state.checkpoint();
    await state.deleteAccount(address);
    expect(await state.getAccount(address)).toBeUndefined();
    await state.revert();
    expect((await state.getAccount(address))?.nonce).toBe(0n);
  });
});
