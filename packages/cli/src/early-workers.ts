import { preloadExecutionWorkers } from "@strata/node/worker-preload";

/**
 * Starts the execution workers of a `strata node` ahead of everything else (bin/strata.js calls this
 * before it loads the CLI): each loads the node's code, about a second on a small machine, while
 * the main thread loads its own, instead of after the node reports ready, when the first call had
 * to wait for them. As many as a node starts by default; the node takes what it needs and dismisses
 * the rest. Not for `strata node --help`. Returns how many were started.
 */
export function preloadNodeWorkers(argv: readonly string[]): number {
  const runsNode = argv[0] === "node" && !argv.includes("--help") && !argv.includes("-h");
  return runsNode ? preloadExecutionWorkers() : 0;
}
