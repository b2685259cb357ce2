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
