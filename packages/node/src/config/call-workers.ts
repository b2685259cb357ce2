import { availableParallelism } from "node:os";

/**
 * The execution workers a node starts unless told otherwise (`--rpc.call-workers`): one per core, up
 * to four. A call costs the main thread little (parse, hand over, answer), so calls can use every
 * core; two workers on two cores serve a third more calls than one.
 */
export function defaultCallWorkers(): number {
  return Math.min(4, availableParallelism());
}
