import type { Common } from "@ethereumjs/common";

/**
 * `Common.isActivatedEIP` scans an array of every active EIP, several times per executed opcode.
 * The array is replaced (never changed in place) whenever the rules change, so a table of flags
 * indexed by EIP number per array answers the same, in constant time; the last array asked about
 * is remembered, as a thread runs under one set of rules at a time. Copies of `common` inherit the
 * lookup.
 */
export function fastEipLookup(common: Common): void {
  const tables = new WeakMap<readonly number[], Uint8Array>();
  let lastActive: readonly number[] | undefined;
  let lastTable: Uint8Array = new Uint8Array(0);
  common.isActivatedEIP = function (this: Common, eip: number): boolean {
    const active = (this as unknown as { _activatedEIPsCache: readonly number[] })._activatedEIPsCache;
    if (active !== lastActive) {
      let table: Uint8Array | undefined = tables.get(active);
      if (!table) {
        table = new Uint8Array(Math.max(0, ...active) + 1);
        for (const number of active) table[number] = 1;
        tables.set(active, table);
      }
      lastActive = active;
      lastTable = table;
    }
    return lastTable[eip] === 1;
  };
}

/**
 * `Common.hardforkGteHardfork` (behind `gteHardfork`, asked several times per transaction and header)
 * walks the chain's hardfork list, which `hardforks()` rebuilds on every call when the chain has
 * custom hardforks, as a blob schedule makes. A chain's hardforks never change order, so each answer
 * is kept per chain-parameters object. Copies of `common` inherit the lookup.
 */
export function fastHardforkLookup(common: Common): void {
  const answers = new WeakMap<object, Map<string, Map<string, boolean>>>();
  const compare = common.hardforkGteHardfork;
  common.hardforkGteHardfork = function (this: Common, hardfork1, hardfork2): boolean {
    const first = hardfork1 ?? this.hardfork();
    const chain = (this as unknown as { _chainParams: object })._chainParams;
    let byFirst = answers.get(chain);
    if (!byFirst) {
      byFirst = new Map();
      answers.set(chain, byFirst);
    }
    let bySecond = byFirst.get(first);
    if (!bySecond) {
      bySecond = new Map();
      byFirst.set(first, bySecond);
    }
    let answer = bySecond.get(hardfork2);
    if (answer === undefined) {
      answer = compare.call(this, first, hardfork2);
      bySecond.set(hardfork2, answer);
    }
    return answer;
  };
}
