/** A cache or map of the indexer that can grow, with its bound (`strata_cache_size`, `strata_cache_bound`). */
export interface GrowingStructure {
  readonly name: string;
  readonly unit: "entries" | "bytes";
  readonly bound: number;
  size(): number;
}
