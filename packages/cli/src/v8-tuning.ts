import { setFlagsFromString } from "node:v8";

/**
 * V8's tier-up budget for a chain node: a function is considered for optimization once it has run
 * about 32 KB of bytecode three times, half of V8's default (`--interrupt-budget=67584`).
 *
 * A dApp test run exercises a wide body of code (the EVM interpreter, RLP, tries, the state caches,
 * the RPC path) that takes dozens of runs to reach TurboFan at the default budget: after ten runs of
 * the `dappWorkflow` benchmark a node still spent a third of its CPU on the compiler threads. At half
 * the budget the timed runs took 221-231 ms instead of 260-291 ms and `eth_estimateGas` 2.1-2.4 ms
 * instead of 2.6-2.8 ms (three alternating pairs); the first run after start takes about 10 % longer.
 */
const TIER_UP_FLAGS = ["--interrupt-budget=32768"] as const;

/**
 * V8 flags a `strata node` process sets before it loads anything else (bin/strata.js calls
 * {@link tuneV8} before it imports the CLI).
 *
 * `--no-allocation-site-pretenuring`: V8 watches which object literals outlive young-generation
 * collections and, once a literal's objects mostly survive, allocates all later ones straight in the
 * old generation, a verdict it does not revisit. In a node under an eth_getBalance load, objects of
 * the request path (zod's parse results among them) were allocated that way although each lives for
 * one request: the old generation grew by 0.7 MB per young collection, young collections took 2 ms
 * instead of 0.5 ms, and mark-compacts ran every few seconds. Without pretenuring they die young.
 * And {@link TIER_UP_FLAGS}.
 */
export const NODE_V8_FLAGS = ["--no-allocation-site-pretenuring", ...TIER_UP_FLAGS] as const;

/**
 * V8 flags of `strata dev`, which runs a chain node, the indexer and the gateway in one process: the
 * node's {@link TIER_UP_FLAGS}; pretenuring stays on for the gateway's sake (see {@link tuneV8}).
 */
export const DEV_V8_FLAGS = TIER_UP_FLAGS;

/**
 * Sets {@link NODE_V8_FLAGS} when `argv` runs a chain node and {@link DEV_V8_FLAGS} when it runs the
 * dev stack. Other commands keep V8's defaults: the gateway, a proxy with little state of its own,
 * measured a little slower without pretenuring. Returns the flags it set.
 */
export function tuneV8(argv: readonly string[]): readonly string[] {
  const flags = argv[0] === "node" ? NODE_V8_FLAGS : argv[0] === "dev" ? DEV_V8_FLAGS : [];
  for (const flag of flags) setFlagsFromString(flag);
  return flags;
}
