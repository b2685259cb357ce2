import { MerkleStateManager } from "@ethereumjs/statemanager";
import { Account, Address, KECCAK256_NULL } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { beforeEach, describe, expect, it } from "vitest";
import { OverlayStateManager } from "./overlay-state.js";

const alice = new Address(new Uint8Array(20).fill(1));
const bob = new Address(new Uint8Array(20).fill(2));
const slot = new Uint8Array(32).fill(3);

let base: MerkleStateManager;
let overlay: OverlayStateManager;

beforeEach(async () => {
  base = new MerkleStateManager();
  await base.putAccount(alice, new Account(1n, 100n));
  await base.putCode(alice, Uint8Array.of(0x60, 0x00));
  await base.putStorage(alice, slot, Uint8Array.of(7));
  overlay = new OverlayStateManager(base, keccak_256);
});

describe("OverlayStateManager", () => {
  it("reads through to the base and never writes to it", async () => {
    expect((await overlay.getAccount(alice))?.balance).toBe(100n);
    await overlay.modifyAccountFields(alice, { balance: 5n });
    await overlay.putStorage(alice, slot, Uint8Array.of(9));
    expect((await overlay.getAccount(alice))?.balance).toBe(5n);
    expect(await overlay.getStorage(alice, slot)).toEqual(Uint8Array.of(9));
    expect((await base.getAccount(alice))?.balance).toBe(100n);
    expect(await base.getStorage(alice, slot)).toEqual(Uint8Array.of(7));
  });

  it("hands out copies, so mutating a read account changes nothing", async () => {
    await overlay.putAccount(bob, new Account(0n, 10n));
    const read = await overlay.getAccount(bob);
    read!.balance = 999n;
    expect((await overlay.getAccount(bob))?.balance).toBe(10n);
  });

  it("reverts a checkpoint and keeps committed frames in their parent", async () => {
    await overlay.checkpoint();
    await overlay.putAccount(bob, new Account(0n, 1n));
    await overlay.checkpoint();
    await overlay.modifyAccountFields(bob, { balance: 2n });
    await overlay.putStorage(alice, slot, Uint8Array.of(1));
    await overlay.commit();
    expect((await overlay.getAccount(bob))?.balance).toBe(2n);
    await overlay.revert();
    expect(await overlay.getAccount(bob)).toBeUndefined();
    expect(await overlay.getStorage(alice, slot)).toEqual(Uint8Array.of(7));
  });

  it("hides base code and storage of deleted or cleared accounts, and restores them on revert", async () => {
    await overlay.checkpoint();
    await overlay.deleteAccount(alice);
    expect(await overlay.getAccount(alice)).toBeUndefined();
    expect(await overlay.getCode(alice)).toEqual(new Uint8Array());
    expect(await overlay.getStorage(alice, slot)).toEqual(new Uint8Array());
    await overlay.revert();
    expect(await overlay.getCodeSize(alice)).toBe(2);
    expect(await overlay.getStorage(alice, slot)).toEqual(Uint8Array.of(7));
    await overlay.clearStorage(alice);
    expect(await overlay.getStorage(alice, slot)).toEqual(new Uint8Array());
  });

  it("sets the code hash when code is stored", async () => {
    await overlay.putCode(bob, Uint8Array.of(1, 2, 3));
    expect((await overlay.getAccount(bob))?.codeHash).toEqual(keccak_256(Uint8Array.of(1, 2, 3)));
    await overlay.putCode(bob, new Uint8Array());
    expect((await overlay.getAccount(bob))?.codeHash).toEqual(KECCAK256_NULL);
  });

  it("drops everything on reset", async () => {
    await overlay.putAccount(bob, new Account(0n, 1n));
    await overlay.checkpoint();
    overlay.reset();
    expect(await overlay.getAccount(bob)).toBeUndefined();
    await overlay.revert();
    expect((await overlay.getAccount(alice))?.balance).toBe(100n);
  });

  it("has no state root of its own", async () => {
    await expect(overlay.getStateRoot()).rejects.toThrow("no state root");
  });
});
