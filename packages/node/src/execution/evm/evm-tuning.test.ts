import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { describe, expect, it } from "vitest";
import { fastEipLookup, fastHardforkLookup } from "./evm-tuning.js";

describe("EVM tuning", () => {
  it("answers isActivatedEIP exactly as the stock lookup, also after a fork change", () => {
    const stock = createCustomCommon({}, Mainnet, { hardfork: Hardfork.Prague });
    const tuned = createCustomCommon({}, Mainnet, { hardfork: Hardfork.Prague });
    fastEipLookup(tuned);
    for (const hardfork of [Hardfork.Prague, Hardfork.London, Hardfork.Cancun]) {
      stock.setHardfork(hardfork);
      tuned.setHardfork(hardfork);
      for (let eip = 1; eip < 8200; eip++)
        expect(tuned.isActivatedEIP(eip), `${hardfork} ${eip}`).toBe(stock.isActivatedEIP(eip));
    }
    const copy = tuned.copy();
    copy.setHardfork(Hardfork.Berlin);
    expect(copy.isActivatedEIP(1559)).toBe(false);
    expect(tuned.isActivatedEIP(1559)).toBe(true);
  });

  it("answers hardfork comparisons exactly as the stock lookup, for the current and named forks", () => {
    const stock = createCustomCommon({}, Mainnet, { hardfork: Hardfork.Prague });
    const tuned = createCustomCommon({}, Mainnet, { hardfork: Hardfork.Prague });
    fastHardforkLookup(tuned);
    const names = [...stock.hardforks().map((hardfork) => hardfork.name), "no-such-fork"];
    for (const current of [Hardfork.Prague, Hardfork.Homestead, Hardfork.Cancun]) {
      stock.setHardfork(current);
      tuned.setHardfork(current);
      for (const second of names) {
        expect(tuned.gteHardfork(second), `${current} >= ${second}`).toBe(stock.gteHardfork(second));
        for (const first of names)
          expect(tuned.hardforkGteHardfork(first, second), `${first} >= ${second}`).toBe(
            stock.hardforkGteHardfork(first, second),
          );
      }
    }
    const copy = tuned.copy();
    copy.setHardfork(Hardfork.Chainstart);
    expect(copy.gteHardfork(Hardfork.Homestead)).toBe(false);
    expect(tuned.gteHardfork(Hardfork.Homestead)).toBe(true);
  });
});
