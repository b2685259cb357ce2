import type { Common } from "@ethereumjs/common";
import { interpreterPrototype } from "./evm-internals.js";

interface JumpAnalysis {
  readonly jumps: Uint8Array;
  readonly pushes: Record<number, bigint>;
  readonly opcodesCached: unknown[];
}

interface InterpreterPrototype {
  _getValidJumpDestinations(this: unknown, code: Uint8Array): JumpAnalysis;
}

/**
 * `Common.isActivatedEIP` scans an array of every active EIP, several times per executed opcode.
 * The array is replaced (never changed in place) whenever the rules change, so a Set per array
 * answers the same, in constant time. Copies of `common` inherit the lookup.
 */
export function fastEipLookup(common: Common): void {
  const sets = new WeakMap<readonly number[], Set<number>>();
  common.isActivatedEIP = function (this: Common, eip: number): boolean {
    const active = (this as unknown as { _activatedEIPsCache: readonly number[] })._activatedEIPsCache;
    let set = sets.get(active);
    if (!set) {
      set = new Set(active);
      sets.set(active, set);
    }
    return set.has(eip);
  };
}

let jumpAnalysisCached = false;

/**
 * The EVM interpreter analyses a contract's code (jump destinations, push values, opcode table)
 * on every call frame. The analysis depends only on the code bytes and on the rules of the Common,
 * which are fixed for a chain, so it is kept per code object (state caches hand out the same object
 * for the same contract). The interpreter module is internal to @ethereumjs/evm, so it is reached by
 * its file; if its layout ever changes, execution simply stays uncached.
 */
export async function cacheJumpAnalysis(): Promise<void> {
  if (jumpAnalysisCached) return;
  jumpAnalysisCached = true;
  const prototype = (await interpreterPrototype()) as Partial<InterpreterPrototype> | undefined;
  const analyse = prototype?._getValidJumpDestinations;
  if (!prototype || typeof analyse !== "function") return;
  const cache = new WeakMap<Uint8Array, JumpAnalysis>();
  prototype._getValidJumpDestinations = function (code: Uint8Array): JumpAnalysis {
    let analysis = cache.get(code);
    if (!analysis) {
      analysis = analyse.call(this, code);
      cache.set(code, analysis);
    }
    return analysis;
  };
}
