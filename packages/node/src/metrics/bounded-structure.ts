/**
 * A cache, map or queue that can grow, as the metrics see it: its current size and the bound it
 * never exceeds, in entries or bytes. Exported as `strata_cache_size` and `strata_cache_bound`.
 */
export interface BoundedStructure {
  /** The `cache` label, e.g. `receipts` (see docs/operations.md for the list). */
  readonly name: string;
  readonly unit: "entries" | "bytes";
  readonly bound: number;
  size(): number;
}

/** A {@link BoundedStructure}'s figures at one moment, as plain data (posted between threads). */
export interface StructureSize {
  readonly name: string;
  readonly unit: "entries" | "bytes";
  readonly bound: number;
  readonly size: number;
}

/** The figures of `structures` now. */
export function sizesNow(structures: readonly BoundedStructure[]): StructureSize[] {
  return structures.map(({ name, unit, bound, size }) => ({ name, unit, bound, size: size() }));
}

/** `structures` named with `prefix` before each name: another instance of the same caches (`module_call_results`). */
export function prefixed(prefix: string, structures: readonly BoundedStructure[]): BoundedStructure[] {
  return structures.map((s) => ({ ...s, name: `${prefix}${s.name}` }));
}
