import { describe, expect, it } from "vitest";
import { earliestTimestamp, slotOrder } from "./schedule.js";

const set = [
  { address: "0xa", stake: 50n },
  { address: "0xb", stake: 30n },
  { address: "0xc", stake: 20n },
];

function proposers(epochLength: bigint, from: bigint, count: number): string[] {
  return Array.from({ length: count }, (_, i) => slotOrder(set, epochLength, from + BigInt(i))[0]!);
}

describe("slotOrder", () => {
  it("gives each validator slots in proportion to its stake over an epoch", () => {
    const epoch = proposers(100n, 0n, 100);
    expect(epoch.filter((p) => p === "0xa")).toHaveLength(50);
    expect(epoch.filter((p) => p === "0xb")).toHaveLength(30);
    expect(epoch.filter((p) => p === "0xc")).toHaveLength(20);
  });

  it("spreads a validator's slots instead of bunching them", () => {
    const epoch = proposers(10n, 0n, 10);
    // Smooth weighted round robin: only the 50 % validator ever proposes twice in a row, never thrice.
    const repeats = epoch.filter((p, i) => i > 0 && epoch[i - 1] === p);
    expect(repeats.every((p) => p === "0xa")).toBe(true);
    expect(epoch.join(",")).not.toMatch(/0xa,0xa,0xa/);
    expect(epoch.slice(0, 3)).toEqual(["0xa", "0xb", "0xc"]);
  });

  it("depends only on the set and the block number, restarting every epoch", () => {
    expect(proposers(10n, 20n, 10)).toEqual(proposers(10n, 0n, 10));
    expect(slotOrder(set, 10n, 7n)).toEqual(slotOrder([...set], 10n, 7n));
  });

  it("orders the fallbacks after the scheduled proposer, wrapping around the set", () => {
    expect(slotOrder(set, 10n, 1n)).toEqual(["0xb", "0xc", "0xa"]);
    expect(slotOrder(set, 10n, 2n)).toEqual(["0xc", "0xa", "0xb"]);
    expect(slotOrder([], 10n, 1n)).toEqual([]);
  });

  it("leaves jailed members out of the rotation, unless every member is jailed", () => {
    const withJailed = [set[0]!, { ...set[1]!, jailed: true }, set[2]!];
    for (let n = 0n; n < 10n; n++) expect(slotOrder(withJailed, 10n, n)).not.toContain("0xb");
    expect(slotOrder(withJailed, 10n, 0n)).toEqual(slotOrder([set[0]!, set[2]!], 10n, 0n));
    const allJailed = set.map((v) => ({ ...v, jailed: true }));
    expect(slotOrder(allJailed, 10n, 1n)).toEqual(slotOrder(set, 10n, 1n));
  });

  it("lets a single validator propose every slot", () => {
    expect(proposers(5n, 0n, 7)).toHaveLength(7);
    expect(new Set(slotOrder([set[0]!], 5n, 3n))).toEqual(new Set(["0xa"]));
  });
});

describe("earliestTimestamp", () => {
  it("is one second after the parent for the scheduled proposer and k timeouts after for fallback k", () => {
    expect(earliestTimestamp(100n, 0, 4n)).toBe(101n);
    expect(earliestTimestamp(100n, 1, 4n)).toBe(104n);
    expect(earliestTimestamp(100n, 3, 4n)).toBe(112n);
  });
});
