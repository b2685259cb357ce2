import { describe, expect, it } from "vitest";
import { percentToFraction, withUptimeFraction } from "./serialize.js";

describe("percentToFraction", () => {
  it("shifts a percentage string two places without floating point", () => {
    expect(percentToFraction("99.90")).toBe("0.999");
    expect(percentToFraction("100.00")).toBe("1");
    expect(percentToFraction("0.00")).toBe("0");
    expect(percentToFraction("6.1")).toBe("0.061");
    expect(percentToFraction("0.07")).toBe("0.0007");
    expect(percentToFraction("33.33")).toBe("0.3333");
    expect(percentToFraction("250")).toBe("2.5");
    expect(() => percentToFraction("-1")).toThrow(/not a percentage/);
  });

  it("converts an item's uptime and leaves the rest alone", () => {
    expect(withUptimeFraction({ id: "a", uptime: "87.50" })).toEqual({ id: "a", uptime: "0.875" });
    expect(withUptimeFraction({ id: "b", uptime: null })).toEqual({ id: "b", uptime: null });
  });
});
