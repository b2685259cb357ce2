import { Caches, CacheType } from "@ethereumjs/statemanager";
import { DecodedAccountCache } from "./decoded-account-cache.js";

/**
 * The part of js-sdsl's OrderedMap that @ethereumjs' account, storage and code caches use, on a
 * hash map. Those caches never iterate the map in key order, so a red-black tree of hex strings only
 * adds a logarithmic number of string comparisons to every account and slot access.
 */
class HashedCacheMap<V> {
  private readonly entries = new Map<string, V>();

  getElementByKey(key: string): V | undefined {
    return this.entries.get(key);
  }

  setElement(key: string, value: V): void {
    this.entries.set(key, value);
  }

  eraseElementByKey(key: string): boolean {
    return this.entries.delete(key);
  }

  size(): number {
    return this.entries.size;
  }

  /** Entries held, each slot of a per-address storage map counted (`size` counts the addresses). */
  entryCount(): number {
    let count = 0;
    for (const value of this.entries.values()) count += value instanceof Map ? value.size : 1;
    return count;
  }

  clear(): void {
    this.entries.clear();
  }
}

/** One of @ethereumjs' account, storage and code caches, as far as {@link cachedEntryCount} reads it. */
interface SizedCache {
  size(): number;
  _orderedMapCache?: unknown;
}

/**
 * Accounts, storage slots and code entries a state manager's caches hold. @ethereumjs' own `size()`
 * of a storage cache counts addresses, each holding a map of any number of slots; here every slot
 * counts.
 */
export function cachedEntryCount(state: object): number {
  const caches = (state as { _caches?: Record<"account" | "storage" | "code", SizedCache | undefined> })
    ._caches;
  let count = 0;
  for (const cache of [caches?.account, caches?.storage, caches?.code]) {
    if (cache === undefined) continue;
    const map = cache._orderedMapCache;
    count += map instanceof HashedCacheMap ? map.entryCount() : cache.size();
  }
  return count;
}

/** Caches made without an account cache: {@link withDecodedAccounts} puts in the decoded one. */
const NONE = { size: 0 };

/**
 * `caches` with a {@link DecodedAccountCache} of `settings` as their account cache, and settings that
 * say so (a shallow copy of the caches then has an account cache of the same kind and size). The
 * caches are made without an account cache of their own: an LRU one preallocates its capacity.
 */
function withDecodedAccounts(caches: Caches, settings: { type: CacheType; size: number }): Caches {
  caches.account = new DecodedAccountCache(settings);
  caches.settings.account = settings;
  return caches;
}

/** Entries per LRU cache: the cache preallocates its capacity, and a head cache lives for one block. */
const LRU_SIZE = 2_000;

/**
 * Account, storage and code caches for a state manager. `lru`: bounded, for state that is only read
 * (the head). `map`: unbounded hash maps, for state that is written and reverted (blocks being
 * built): reverting an LRU cache costs time proportional to its capacity. Accounts are kept decoded
 * ({@link DecodedAccountCache}).
 */
export function createStateCaches(kind: "lru" | "map"): Caches {
  if (kind === "lru") {
    const lru = { type: CacheType.LRU, size: LRU_SIZE };
    return withDecodedAccounts(
      new Caches({ account: NONE, storage: lru, code: { type: CacheType.LRU, size: 1000 } }),
      lru,
    );
  }
  // The size of an ordered map only has to be non-zero for the cache to exist.
  const map = { type: CacheType.ORDERED_MAP, size: 1 };
  const caches = withDecodedAccounts(new Caches({ account: NONE, storage: map, code: map }), map);
  for (const cache of [caches.account, caches.storage, caches.code]) {
    (cache as unknown as { _orderedMapCache: unknown })._orderedMapCache = new HashedCacheMap();
  }
  return caches;
}
