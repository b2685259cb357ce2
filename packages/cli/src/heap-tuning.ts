import { setFlagsFromString } from "node:v8";

/**
 * V8 flags the `strata` process sets before it loads anything else (bin/strata.js imports this module
 * first).
 *
 * `--no-allocation-site-pretenuring`: V8 watches which object literals outlive young-generation
 * collections and, once a literal's objects mostly survive, allocates all later ones straight in the
 * old generation, a verdict it does not revisit. In a node under an eth_getBalance load, objects of
 * the request path (zod's parse results among them) were allocated that way although each lives for
 * one request: the old generation grew by 0.7 MB per young collection, young collections took 2 ms
 * instead of 0.5 ms, and mark-compacts ran every few seconds. Without pretenuring they die young.
 */
export const STRATA_V8_FLAGS = ["--no-allocation-site-pretenuring"] as const;

for (const flag of STRATA_V8_FLAGS) setFlagsFromString(flag);
