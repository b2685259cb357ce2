import type { Caches, MerkleStateManager } from "@ethereumjs/statemanager";
import type { DecodedAccountStateManager } from "./decoded-account-cache.js";
import { createStateCaches } from "./state-caches.js";
import type { StateFactory } from "./state-factory.js";

/**
 * What a committed block did to the state: the state roots before and after it, and every address
 * whose account, code or storage it changed (lowercase hex, as {@link BuiltBlock.accounts} names them).
 */
export interface StateStep {
  readonly parentRoot: Uint8Array;
  readonly root: Uint8Array;
  readonly changed: readonly string[];
}

/** The part of an lru-cache a state manager's cache holds its entries in. */
interface EntryCache<V> {
  rentries(): Generator<[string, V]>;
  set(key: string, value: V): unknown;
}

/** One of @ethereumjs' account, storage or code caches, as far as carrying reads it. */
interface LruBacked {
  _lruCache?: EntryCache<unknown>;
}

/**
 * A read-only state at `step.root` whose account, storage and code caches start with everything
 * `from` (a read-only `lru` state at `step.parentRoot`) had cached, except the addresses the block
 * changed: an entry of any other address is the same at both roots (the block wrote nothing to it),
 * so reads after a block do not walk the trie again for what was read before it. `from` is left as it
 * was. Entries are shared between the two: a state that is only read never changes an entry, and
 * what a read adds to an address's slot map is the same value at both roots.
 */
export function carriedState(
  states: StateFactory,
  from: MerkleStateManager,
  step: StateStep,
): DecodedAccountStateManager {
  const source = (from as unknown as { _caches?: Caches })._caches;
  const caches = createStateCaches("lru");
  const changed = new Set(step.changed.map((address) => address.slice(2).toLowerCase()));
  if (source) {
    copyEntries(source.account, caches.account, changed);
    copyEntries(source.storage, caches.storage, changed);
    copyEntries(source.code, caches.code, changed);
  }
  return states.at(step.root, caches);
}

/** Copies `from`'s entries into `to`, oldest first (so recency is kept), leaving out `changed` addresses. */
function copyEntries(from: object | undefined, to: object | undefined, changed: ReadonlySet<string>): void {
  const source = (from as LruBacked | undefined)?._lruCache;
  const target = (to as LruBacked | undefined)?._lruCache;
  if (!source || !target) return;
  for (const [key, value] of source.rentries()) {
    if (!changed.has(key)) target.set(key, value);
  }
}

/** Steps remembered: a job names a block soon after it is committed, or not at all. */
const STEPS_KEPT = 16;

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
    } else {
      const step = this.steps.get(key);
      const parent = step && this.warm.get(rootKey(step.parentRoot));
      state = step && parent ? carriedState(this.states, parent, step) : this.states.at(stateRoot, "lru");
    }
    this.warm.set(key, state);
    if (this.warm.size > this.kept) this.warm.delete(this.warm.keys().next().value as string);
    return state;
  }
}

function rootKey(root: Uint8Array): string {
  return Buffer.from(root).toString("hex");
}
