import type { StateManagerInterface } from "@ethereumjs/common";
import type { Caches, MerkleStateManager } from "@ethereumjs/statemanager";
import { createAccountFromRLP, createAddressFromString, hexToBytes } from "@ethereumjs/util";
import type { DecodedAccountStateManager, FlushedStorageAndCode, WriteLog } from "./decoded-account-cache.js";
import { createStateCaches } from "./state-caches.js";
import type { StateFactory } from "./state-factory.js";

/**
 * What a committed block did to the state: the state roots before and after it, and every address
 * whose account, code or storage it changed (lowercase hex, as {@link BuiltBlock.accounts} names them).
 */
export interface StateStep {
  /** The block's hash. */
  readonly blockHash: Uint8Array;
  readonly parentRoot: Uint8Array;
  readonly root: Uint8Array;
  readonly changed: readonly string[];
  /** What the block wrote, as it stands after it, when known and not too large to post. */
  readonly written?: StateWrites;
  /** The proof-of-stake active set after the block, when the node worked it out building the block. */
  readonly activeSet?: readonly StepValidator[];
  /** What the block's consensus system calls before its first transaction left, when known and small. */
  readonly startWrites?: StartOfBlockWrites;
}

/**
 * The values the consensus steps at the start of a block (the Staking contract's `recordSlot`) wrote,
 * as they stood before the block's first transaction, by lowercase hex address: accounts as RLP
 * (null: deleted), slots by unprefixed key hex (their value's bytes, without leading zeros) and code.
 * A replay of the block puts them over its parent's state instead of running those calls again.
 */
export interface StartOfBlockWrites {
  readonly accounts: ReadonlyMap<string, Uint8Array | null>;
  readonly slots: ReadonlyMap<string, ReadonlyMap<string, Uint8Array>>;
  readonly code: ReadonlyMap<string, Uint8Array>;
}

/**
 * What `log` saw written, read back from `state` as it now stands; undefined when an account whose
 * storage was wiped still exists (no list of slots says what its storage lost) or it is more than is
 * worth posting ({@link MAX_POSTED_WRITES}). A deleted account is carried as such (null).
 */
export async function startOfBlockWrites(
  state: StateManagerInterface,
  log: WriteLog,
): Promise<StartOfBlockWrites | undefined> {
  let entries = log.accounts.size + log.code.size;
  for (const keys of log.slots.values()) entries += keys.size;
  if (entries > MAX_POSTED_WRITES) return undefined;
  const accounts = new Map<string, Uint8Array | null>();
  for (const address of log.accounts) {
    const account = await state.getAccount(createAddressFromString(address));
    accounts.set(address, account ? account.serialize() : null);
  }
  for (const address of log.wiped) if (accounts.get(address) !== null) return undefined;
  const slots = new Map<string, Map<string, Uint8Array>>();
  for (const [address, keys] of log.slots) {
    // A deleted account has no storage left: its deletion says it all.
    if (accounts.get(address) === null) continue;
    const values = new Map<string, Uint8Array>();
    for (const key of keys)
      values.set(key, await state.getStorage(createAddressFromString(address), hexToBytes(`0x${key}`)));
    slots.set(address, values);
  }
  const code = new Map<string, Uint8Array>();
  for (const address of log.code)
    if (accounts.get(address) !== null)
      code.set(address, await state.getCode(createAddressFromString(address)));
  return { accounts, slots, code };
}

/** Puts `writes` into `state` (a replay's throwaway overlay): accounts first, then code and slots. */
export async function applyStartOfBlockWrites(
  state: StateManagerInterface,
  writes: StartOfBlockWrites,
): Promise<void> {
  for (const [address, rlp] of writes.accounts) {
    const at = createAddressFromString(address);
    if (rlp) await state.putAccount(at, createAccountFromRLP(rlp));
    else await state.deleteAccount(at);
  }
  for (const [address, code] of writes.code) await state.putCode(createAddressFromString(address), code);
  for (const [address, values] of writes.slots) {
    const at = createAddressFromString(address);
    for (const [key, value] of values) await state.putStorage(at, hexToBytes(`0x${key}`), value);
  }
}

/**
 * A member of a block's active set as a step carries it: consensus's `ActiveValidator`, which
 * execution passes on without reading.
 */
export interface StepValidator {
  readonly address: string;
  readonly stake: bigint;
  readonly jailed?: boolean;
}

/**
 * The values a block wrote (posted to execution workers with its {@link StateStep}), by lowercase
 * hex address: each changed account's RLP (null: deleted), the storage slots it wrote (by unprefixed
 * key hex, each as a storage cache holds it), and new code. The state after the block starts with
 * them cached, so the first reads after a block find what it changed without walking the trie.
 */
export type StateWrites = FlushedStorageAndCode;

/** Slots and accounts beyond which a block's writes are not posted (its step names the addresses only). */
const MAX_POSTED_WRITES = 4_096;
/** Code bytes beyond which a block's writes are not posted. */
const MAX_POSTED_CODE_BYTES = 1024 * 1024;

/**
 * What a block's build flushed, as its {@link StateWrites}, or undefined when it is more than is
 * worth posting to every worker ({@link MAX_POSTED_WRITES}, {@link MAX_POSTED_CODE_BYTES}).
 */
export function stateWrites(written: FlushedStorageAndCode): StateWrites | undefined {
  let entries = written.accounts.size;
  for (const slots of written.slots.values()) entries += slots.size;
  let codeBytes = 0;
  for (const code of written.code.values()) codeBytes += code.length;
  if (entries > MAX_POSTED_WRITES || codeBytes > MAX_POSTED_CODE_BYTES) return undefined;
  return written;
}

/** The part of an lru-cache a state manager's cache holds its entries in. */
interface EntryCache<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): unknown;
  delete(key: string): boolean;
}

/** One of @ethereumjs' account, storage or code caches, as far as carrying reads it. */
interface LruBacked {
  _lruCache?: EntryCache<unknown>;
}

/**
 * Slots of a changed address beyond which its parent's cached slots are not carried (a contract that
 * writes a new slot every block would otherwise have its map grow block after block).
 */
const MAX_CARRIED_SLOTS = 1_024;

/**
 * A read-only state at `step.root` that takes over the account, storage and code caches of `from`
 * (a read-only `lru` state at `step.parentRoot`): an entry of an address the block did not change is
 * the same at both roots, and so are the code and the slots the block did not write of an address it
 * changed, when its writes are known (`step.written`) and its storage was not wiped; every other entry
 * of a changed address is dropped, and the written values are put over what stays. Reads after a
 * block then do not walk the trie again for what was read before it, and carrying costs what the
 * block changed rather than what was cached (copying a full set of caches took about half a
 * millisecond, block after block). `from` goes on without caches, until {@link WarmStates.at} hands
 * it out again (a call naming that block, a trace replayed on it) and gives it new ones.
 */
export function carriedState(
  states: StateFactory,
  from: MerkleStateManager,
  step: StateStep,
): DecodedAccountStateManager {
  const holder = cacheHolder(from);
  const caches = holder._caches ?? createStateCaches("lru");
  // No caches rather than new ones (making a set of LRU caches allocates their capacity, about a
  // tenth of a millisecond): the parent is seldom read again.
  holder._caches = undefined;
  const written = step.written;
  const changed = step.changed.map((address) => address.slice(2).toLowerCase());
  // Changed addresses whose unwritten slots and code still hold after the block.
  const kept = written ? keptAddresses(new Set(changed), written) : new Set<string>();
  const accounts = (caches.account as LruBacked | undefined)?._lruCache;
  const storage = (caches.storage as LruBacked | undefined)?._lruCache;
  const code = (caches.code as LruBacked | undefined)?._lruCache;
  for (const key of changed) {
    accounts?.delete(key);
    // Code changes only with the account's creation or deletion (or an EIP-7702 delegation), all written.
    if (!kept.has(key) || written?.code.has(`0x${key}`)) code?.delete(key);
    const slots = storage?.get(key);
    if (slots !== undefined && (!kept.has(key) || !(slots instanceof Map) || slots.size > MAX_CARRIED_SLOTS))
      storage?.delete(key);
  }
  if (written) putWrites(caches, written);
  return states.at(step.root, caches);
}

/** The changed addresses (unprefixed) that still exist after the block and whose storage it did not wipe. */
function keptAddresses(changed: ReadonlySet<string>, written: StateWrites): Set<string> {
  const kept = new Set<string>();
  for (const key of changed) {
    const address = `0x${key}`;
    if (written.accounts.get(address) !== null && !written.wiped.has(address)) kept.add(key);
  }
  return kept;
}

/**
 * Caches `writes` (values as they stand at the state the caches are for) over what the caches hold.
 * A written address's storage map holds its written slots and those carried from the parent: other
 * slots are read from the trie when asked for.
 */
function putWrites(caches: Caches, writes: StateWrites): void {
  const accounts = (caches.account as LruBacked | undefined)?._lruCache;
  const storage = (caches.storage as LruBacked | undefined)?._lruCache;
  const code = (caches.code as LruBacked | undefined)?._lruCache;
  for (const [address, rlp] of writes.accounts)
    accounts?.set(address.slice(2), { accountRLP: rlp ?? undefined });
  for (const [address, slots] of writes.slots) {
    const carried = storage?.get(address.slice(2));
    if (carried instanceof Map) for (const [key, value] of slots) carried.set(key, value);
    else storage?.set(address.slice(2), new Map(slots));
  }
  for (const [address, bytes] of writes.code) code?.set(address.slice(2), { code: bytes });
}

/** A state manager's caches as carrying moves them (internal to @ethereumjs/statemanager). */
function cacheHolder(state: MerkleStateManager): { _caches: Caches | undefined } {
  return state as unknown as { _caches: Caches | undefined };
}

/** Steps remembered: a job names a block soon after it is committed, or not at all. */
export const STEPS_KEPT = 16;

/**
 * Read-only states with caches, kept for the last few state roots asked for (an execution worker's
 * head, and the block before it while calls still name it). Told what each committed block changed
 * ({@link record}), the state after a block starts from its parent's caches ({@link carriedState})
 * instead of empty ones.
 */
export class WarmStates {
  private readonly warm = new Map<string, MerkleStateManager>();
  private readonly steps = new Map<string, StateStep>();

  constructor(
    private readonly states: StateFactory,
    private readonly kept: number,
  ) {}

  /** What the start of the block `blockHash` wrote, when its step is remembered and carries it. */
  startWritesOf(blockHash: Uint8Array): StartOfBlockWrites | undefined {
    const key = Buffer.from(blockHash).toString("hex");
    for (const step of this.steps.values())
      if (Buffer.from(step.blockHash).toString("hex") === key) return step.startWrites;
    return undefined;
  }

  /** Remembers what a committed block changed, for when its state is first asked for. */
  record(step: StateStep): void {
    this.steps.set(rootKey(step.root), step);
    if (this.steps.size > STEPS_KEPT) this.steps.delete(this.steps.keys().next().value as string);
  }

  /** The read-only state at `stateRoot`, with caches. */
  at(stateRoot: Uint8Array): MerkleStateManager {
    const key = rootKey(stateRoot);
    let state = this.warm.get(key);
    if (state) {
      this.warm.delete(key);
      // A parent whose caches went to its child ({@link carriedState}) is read again: new ones.
      const holder = cacheHolder(state);
      holder._caches ??= createStateCaches("lru");
    } else {
      const step = this.steps.get(key);
      const parent = step && this.warm.get(rootKey(step.parentRoot));
      state = step && parent ? carriedState(this.states, parent, step) : this.fresh(stateRoot, step);
    }
    this.warm.set(key, state);
    if (this.warm.size > this.kept) this.warm.delete(this.warm.keys().next().value as string);
    return state;
  }

  /** The state at `stateRoot` with fresh caches, holding what `step` (the block that made it) wrote. */
  private fresh(stateRoot: Uint8Array, step: StateStep | undefined): MerkleStateManager {
    if (!step?.written) return this.states.at(stateRoot, "lru");
    const caches = createStateCaches("lru");
    putWrites(caches, step.written);
    return this.states.at(stateRoot, caches);
  }
}

function rootKey(root: Uint8Array): string {
  return Buffer.from(root).toString("hex");
}
