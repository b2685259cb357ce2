import { describe, expect, it } from "vitest";
import { hexToBytes, isData, isQuantity, parseQuantity, quantityProblem, toData, toQuantity } from "./hex.js";

describe("quantities", () => {
  it("encodes without leading zeros", () => {
    expect(toQuantity(0)).toBe("0x0");
    expect(toQuantity(255n)).toBe("0xff");
    expect(toQuantity(2n ** 256n - 1n)).toBe(`0x${"f".repeat(64)}`);
  });

  it("refuses negative and unsafe numbers", () => {
    expect(() => toQuantity(-1)).toThrow(RangeError);
    expect(() => toQuantity(-1n)).toThrow(RangeError);
    expect(() => toQuantity(2 ** 60)).toThrow(RangeError);
  });

  it.each([
    ["0x", 'hex string "0x"'],
    ["0x01", "hex number with leading zero digits"],
    ["1", "hex string without 0x prefix"],
    [`0x${"1".repeat(100)}`, "hex number > 256 bits"],
    ["0xzz", "invalid hex string"],
  ])("rejects %s with a reason", (value, reason) => {
    expect(isQuantity(value) && value.length <= 66).toBe(false);
    expect(quantityProblem(value)).toBe(reason);
  });

  it("parses strict quantities, upper-case digits included", () => {
    expect(parseQuantity("0x0")).toBe(0n);
    expect(parseQuantity("0xAb")).toBe(171n);
    expect(() => parseQuantity("0x00")).toThrow("leading zero");
  });
});

describe("data", () => {
  it("round-trips bytes", () => {
    const bytes = new Uint8Array([0, 1, 0xab, 0xff]);
    expect(toData(bytes)).toBe("0x0001abff");
    expect(hexToBytes("0x0001abff")).toEqual(bytes);
    expect(toData(new Uint8Array())).toBe("0x");
  });

  it("checks whole bytes and exact lengths", () => {
    expect(isData("0x")).toBe(true);
    expect(isData("0x123")).toBe(false);
    expect(isData("0x1234", 2)).toBe(true);
    expect(isData("0x1234", 3)).toBe(false);
  });
});
