import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { describe, expect, it } from "vitest";
import { cacheJumpAnalysis, fastEipLookup, fastHardforkLookup } from "./evm-tuning.js";

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

  it("reuses the jump analysis of a code object", async () => {
    await cacheJumpAnalysis();
    const evmIndex = createRequire(import.meta.url).resolve("@ethereumjs/evm");
    const url = pathToFileURL(join(dirname(evmIndex), "..", "esm", "interpreter.js")).href;
    const { Interpreter } = (await import(url)) as {
      Interpreter: { prototype: { _getValidJumpDestinations(code: Uint8Array): { jumps: Uint8Array } } };
    };
    const fake = { lookupOpInfo: () => ({}), common: { isActivatedEIP: () => false } };
    const code = Uint8Array.of(0x60, 0x5b, 0x5b, 0x00);
    const first = Interpreter.prototype._getValidJumpDestinations.call(fake, code);
    expect(Interpreter.prototype._getValidJumpDestinations.call(fake, code)).toBe(first);
    expect([...first.jumps]).toEqual([0, 0, 1, 0]);
    const other = Interpreter.prototype._getValidJumpDestinations.call(
      fake,
      Uint8Array.of(0x60, 0x5b, 0x5b, 0x00),
    );
    expect(other).not.toBe(first);
  });
});
