import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { CacheType, MerkleStateManager } from "@ethereumjs/statemanager";
import { Account, type Address, bytesToHex, createAddressFromString, hexToBytes } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { DecodedAccountCache, DecodedAccountStateManager } from "./decoded-account-cache.js";
import { cachedEntryCount, createStateCaches } from "./state-caches.js";

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

/** The plain meaning of the changes: accounts with their code and storage, checkpoints as snapshots. */
interface ModelAccount {
  nonce: bigint;
  balance: bigint;
  code: Uint8Array | undefined;
  storage: Map<string, Uint8Array>;
}
type Model = Map<string, ModelAccount>;

function copyModel(model: Model): Model {
  return new Map([...model].map(([k, a]) => [k, { ...a, storage: new Map(a.storage) }]));
}

function modelAccount(model: Model, address: Address): ModelAccount {
  const key = address.toString();
  const account = model.get(key) ?? { nonce: 0n, balance: 0n, code: undefined, storage: new Map() };
  model.set(key, account);
  return account;
}

/**
 * Runs the same random account, storage and code changes, checkpoints, reverts and commits on each
 * state, and on a model; returns the model's final accounts. Accounts are deleted outside
 * checkpoints only: @ethereumjs' storage cache does not restore the slots of an account whose
 * deletion is reverted (its clearStorage keeps no undo record), in the stock state manager as here.
 */
async function applySameChanges(states: State[], seed: number): Promise<Model> {
  const next = random(seed);
  let model: Model = new Map();
  const snapshots: Model[] = [];
  for (let step = 0; step < 400; step++) {
    const address = addresses[Math.floor(next() * addresses.length)]!;
    const op = next();
    const key = new Uint8Array(32);
    key[31] = step % 5;
    const slot = Uint8Array.of(step & 0xff, 1);
    const code = Uint8Array.of(0x60, step & 0xff, 0x00);
    for (const state of states) {
      if (op < 0.35) {
        const account = (await state.getAccount(address)) ?? new Account();
        account.balance += BigInt(step + 1);
        account.nonce += 1n;
        await state.putAccount(address, account);
      } else if (op < 0.45) {
        if (snapshots.length === 0) await state.deleteAccount(address);
      } else if (op < 0.6) {
        if ((await state.getAccount(address)) === undefined) await state.putAccount(address, new Account());
        await state.putStorage(address, key, slot);
      } else if (op < 0.65) {
        await state.putCode(address, code);
      } else if (op < 0.78) {
        await state.checkpoint();
      } else if (op < 0.88 && snapshots.length > 0) {
        await state.revert();
      } else if (snapshots.length > 0) {
        await state.commit();
      }
    }
    if (op < 0.35) {
      const account = modelAccount(model, address);
      account.balance += BigInt(step + 1);
      account.nonce += 1n;
    } else if (op < 0.45) {
      if (snapshots.length === 0) model.delete(address.toString());
    } else if (op < 0.6) {
      modelAccount(model, address).storage.set(bytesToHex(key), slot);
    } else if (op < 0.65) {
      modelAccount(model, address).code = code;
    } else if (op < 0.78) {
      snapshots.push(copyModel(model));
    } else if (op < 0.88 && snapshots.length > 0) {
      model = snapshots.pop()!;
    } else if (snapshots.length > 0) {
      snapshots.pop();
    }
  }
  for (const state of states) for (let i = 0; i < snapshots.length; i++) await state.commit();
  return model;
}

/** The state root of the model's accounts, written into an empty stock state manager. */
async function modelRoot(model: Model): Promise<string> {
  const state = new MerkleStateManager();
  for (const [key, account] of model) {
    const address = createAddressFromString(key);
    await state.putAccount(address, new Account(account.nonce, account.balance));
    if (account.code) await state.putCode(address, account.code);
    for (const [slot, value] of account.storage)
      await state.putStorage(address, hexToBytes(slot as `0x${string}`), value);
  }
  return bytesToHex(await state.getStateRoot());
}

function decodedState(kind: "map" | "lru"): State {
  return new DecodedAccountStateManager({
    trie: new MerklePatriciaTrie({ useKeyHashing: true }),
    caches: createStateCaches(kind),
  });
}

describe("decoded account caches", () => {
  it("end in the state root of the changes' plain meaning, through checkpoints and reverts", async () => {
    for (const seed of [1, 7, 42, 1234]) {
      const map = decodedState("map");
      const lru = decodedState("lru");
      const model = await applySameChanges([map, lru], seed);
      const root = await modelRoot(model);
      expect(bytesToHex(await map.getStateRoot())).toBe(root);
      expect(bytesToHex(await lru.getStateRoot())).toBe(root);
      for (const address of addresses) {
        const expected = model.get(address.toString());
        for (const state of [map, lru]) {
          const account = await state.getAccount(address);
          expect(account && [account.nonce, account.balance]).toEqual(
            expected && [expected.nonce, expected.balance],
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

describe("createStateCaches", () => {
  it("makes one account cache, the decoded one, with settings that say what it is (copies get one too)", () => {
    for (const [kind, type, size] of [
      ["lru", CacheType.LRU, 2_000],
      ["map", CacheType.ORDERED_MAP, 1],
    ] as const) {
      const caches = createStateCaches(kind);
      expect(caches.account, kind).toBeInstanceOf(DecodedAccountCache);
      expect(caches.settings.account, kind).toEqual({ type, size });
      expect(caches.shallowCopy(false)?.account, kind).toBeDefined();
      expect(caches.storage, kind).toBeDefined();
      expect(caches.code, kind).toBeDefined();
    }
  });
});

describe("cachedEntryCount", () => {
  it("counts every cached storage slot, where the storage cache's own size counts addresses", async () => {
    for (const kind of ["map", "lru"] as const) {
      const state = decodedState(kind);
      const [address] = addresses;
      await state.putAccount(address!, new Account(1n, 1n));
      for (let slot = 1; slot <= 500; slot++)
        await state.putStorage(
          address!,
          hexToBytes(`0x${slot.toString(16).padStart(64, "0")}`),
          Uint8Array.of(1),
        );
      const storage = (state as unknown as { _caches: { storage: { size(): number } } })._caches.storage;
      if (kind === "map") {
        expect(storage.size()).toBe(1);
        expect(cachedEntryCount(state)).toBe(501);
      } else expect(cachedEntryCount(state)).toBeGreaterThanOrEqual(storage.size());
    }
  });
});
