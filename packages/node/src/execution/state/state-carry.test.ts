import {
  bytesToHex,
  createAddressFromString,
  createContractAddress,
  hexToBytes,
  setLengthLeft,
} from "@ethereumjs/util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenedChain, openChain } from "../../chain/open-chain.js";
import { testConfig } from "../../config/node-config.js";
import { deriveDevAccounts } from "../../dev-accounts.js";
import { signedCandidate } from "../../testing/executor-candidates.js";
import { BlockExecutor } from "../block/block-executor.js";
import { cachedEntryCount } from "./state-caches.js";
import { carriedState, type StateStep, WarmStates } from "./state-carry.js";

// Stores 1 in slot 0, then deploys a runtime that stores its first calldata word in slot 0.
const CREATION = "0x60016000556007601160003960076000f360003560005500";
const COINBASE = createAddressFromString("0x00000000000000000000000000000000000000cb");
const RECIPIENT = "0x00000000000000000000000000000000000000aa";

describe("state carried from a block's parent", () => {
  let opened: OpenedChain;
  const steps: StateStep[] = [];
  beforeAll(async () => {
    opened = await openChain(testConfig().network, null);
    opened.chain.events.on("stateStep", (step) => steps.push(step));
  });
  afterAll(async () => {
    await opened?.close();
  });

  it("answers every read as the state opened at the block's root, and starts with what the parent had cached", async () => {
    const { chain, common, trieDb, chainView } = opened;
    const executor = new BlockExecutor(common, chain.states, trieDb, chainView);
    const [sender, bystander] = deriveDevAccounts(testConfig().network);
    let nonce = 0n;
    const mine = async (txs: { to?: string; data?: string; value?: bigint }[]) => {
      const candidates = txs.map(({ to, data, value }) =>
        signedCandidate(common, sender!, {
          nonce: nonce++,
          ...(to ? { to } : {}),
          ...(data ? { data: hexToBytes(data as `0x${string}`) } : {}),
          ...(value ? { value } : {}),
        }),
      );
      const parent = chain.head;
      const built = await executor.build(parent, candidates, {
        timestamp: parent.header.timestamp + 1n,
        coinbase: COINBASE.bytes,
      });
      expect(built.rejected).toEqual([]);
      expect(built.receipts.every((receipt) => receipt.status === 1)).toBe(true);
      await chain.commit(built);
      return built.block;
    };
    const from = createAddressFromString(sender!.address);
    const contract = createContractAddress(from, nonce);
    const first = await mine([{ data: CREATION }, { to: RECIPIENT, value: 5n }]);

    const addresses = [
      from,
      contract,
      COINBASE,
      createAddressFromString(RECIPIENT),
      createAddressFromString(bystander!.address),
    ];
    const slots = [new Uint8Array(32), setLengthLeft(new Uint8Array([1]), 32)];
    const read = async (state: ReturnType<WarmStates["at"]>) => {
      const seen: unknown[] = [];
      for (const address of addresses) {
        const account = await state.getAccount(address);
        seen.push(account ? [account.nonce, account.balance, bytesToHex(account.storageRoot)] : null);
        seen.push(bytesToHex(await state.getCode(address)));
        if (account) for (const slot of slots) seen.push(bytesToHex(await state.getStorage(address, slot)));
      }
      return seen;
    };

    const warm = new WarmStates(chain.states, 2);
    const before = warm.at(first.header.stateRoot);
    await read(before);
    expect(await before.getStorage(contract, slots[0]!)).toEqual(new Uint8Array([1]));

    // The contract's slot changes, the sender, recipient and coinbase change; the bystander does not.
    const word = setLengthLeft(new Uint8Array([42]), 32);
    const second = await mine([
      { to: contract.toString(), data: bytesToHex(word) },
      { to: RECIPIENT, value: 7n },
    ]);
    const step = steps.at(-1)!;
    expect(bytesToHex(step.parentRoot)).toBe(bytesToHex(first.header.stateRoot));
    expect(bytesToHex(step.root)).toBe(bytesToHex(second.header.stateRoot));
    for (const address of [from, contract, COINBASE, createAddressFromString(RECIPIENT)])
      expect(step.changed).toContain(address.toString());
    expect(step.changed).not.toContain(bystander!.address.toLowerCase());

    // The step carries what the block wrote, as it stands after it: the contract's slot among them.
    const slotKey = bytesToHex(slots[0]!).slice(2);
    expect(step.written?.slots.get(contract.toString())?.get(slotKey)).toEqual(Uint8Array.of(42));
    expect(step.written?.accounts.get(from.toString())).toBeInstanceOf(Uint8Array);

    warm.record(step);
    const parentCaches = (before as unknown as { _caches: object })._caches;
    const after = warm.at(second.header.stateRoot);
    // The parent's caches moved to the state after the block (nothing was copied); the parent goes
    // on without.
    expect((after as unknown as { _caches: object })._caches).toBe(parentCaches);
    expect(cachedEntryCount(before)).toBe(0);
    // Cached before any read: the written slot and the changed accounts.
    const cachedSlot = (state: object, slot = slots[0]!) =>
      (
        state as { _caches: { storage: { get(a: unknown, k: Uint8Array): Uint8Array | undefined } } }
      )._caches.storage.get(contract, slot);
    const cachedCode = (state: object) =>
      (
        state as { _caches: { code: { get(a: unknown): { code?: Uint8Array } | undefined } } }
      )._caches.code.get(contract)?.code;
    expect(cachedSlot(after)).toEqual(Uint8Array.of(42));
    // The contract changed, but its storage was not wiped: the slot and the code read at the parent,
    // which the block did not write, came along too.
    expect(cachedSlot(after, slots[1]!)).toBeDefined();
    expect(cachedCode(after)?.length).toBeGreaterThan(0);
    // Warm from the start: the bystander's entries came along.
    expect(cachedEntryCount(after)).toBeGreaterThan(0);
    const cold = chain.states.at(second.header.stateRoot);
    expect(await read(after)).toEqual(await read(cold));
    expect(await after.getStorage(contract, slots[0]!)).toEqual(new Uint8Array([42]));
    // The parent's state still answers as before the block, from its trie; handed out again, it
    // caches its reads again.
    expect(await before.getStorage(contract, slots[0]!)).toEqual(new Uint8Array([1]));
    expect(await read(before)).toEqual(await read(chain.states.at(first.header.stateRoot)));
    expect(cachedEntryCount(before)).toBe(0);
    expect(warm.at(first.header.stateRoot)).toBe(before);
    await read(before);
    expect(cachedEntryCount(before)).toBeGreaterThan(0);
    expect(await read(before)).toEqual(await read(chain.states.at(first.header.stateRoot)));

    // A parent state with every read of `read` cached, as `before` had before the carry.
    const warmParent = async () => {
      const state = chain.states.at(first.header.stateRoot, "lru");
      await read(state);
      return state;
    };
    // Without the block's changed addresses the carried caches would answer the parent's values: the
    // list is what keeps the carried state right.
    const stale = carriedState(chain.states, await warmParent(), {
      blockHash: step.blockHash,
      parentRoot: step.parentRoot,
      root: step.root,
      changed: [],
    });
    expect(await stale.getStorage(contract, slots[0]!)).toEqual(new Uint8Array([1]));

    // Of an address whose storage the block wiped, only the written slots are known afterwards.
    const wiped = carriedState(chain.states, await warmParent(), {
      ...step,
      written: { ...step.written!, wiped: new Set([contract.toString()]) },
    });
    expect(cachedSlot(wiped)).toEqual(Uint8Array.of(42));
    expect(cachedSlot(wiped, slots[1]!)).toBeUndefined();
    expect(cachedCode(wiped)).toBeUndefined();

    // A slot the block empties is carried as known-empty; a state whose parent is not warm any more
    // starts with the block's writes too.
    const third = await mine([{ to: contract.toString(), data: bytesToHex(new Uint8Array(32)) }]);
    const emptied = steps.at(-1)!;
    expect(emptied.written?.slots.get(contract.toString())?.get(slotKey)).toEqual(Uint8Array.of(0x80));
    const unrelated = new WarmStates(chain.states, 2);
    unrelated.record(emptied);
    const fresh = unrelated.at(third.header.stateRoot);
    expect(cachedSlot(fresh)).toEqual(Uint8Array.of(0x80));
    expect(await fresh.getStorage(contract, slots[0]!)).toEqual(new Uint8Array());
    expect(await read(fresh)).toEqual(await read(chain.states.at(third.header.stateRoot)));
  });

  it("reports the addresses whose storage a state cleared or whose account it deleted", async () => {
    const state = opened.chain.states.at(opened.chain.head.header.stateRoot);
    state.takeFlushedAccounts();
    const [cleared, deleted] = [RECIPIENT, COINBASE.toString()].map((a) => createAddressFromString(a));
    await state.clearStorage(cleared!);
    await state.deleteAccount(deleted!);
    expect([...state.flushedStorageAndCode().wiped].sort()).toEqual(
      [cleared!.toString(), deleted!.toString()].sort(),
    );
    state.takeFlushedAccounts();
    expect(state.flushedStorageAndCode().wiped.size).toBe(0);
  });
});
