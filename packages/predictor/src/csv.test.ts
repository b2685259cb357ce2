import { describe, expect, it } from "vitest";
import { PriceCsvError, parsePriceCsv, rowsToPricePoints } from "./csv.js";

function errorOf(text: string): PriceCsvError {
  try {
    parsePriceCsv(text);
  } catch (error) {
    if (error instanceof PriceCsvError) return error;
    throw error;
  }
  throw new Error("expected a PriceCsvError");
}

describe("parsePriceCsv", () => {
  it("parses date,close rows", () => {
    expect(parsePriceCsv("date,close\n2024-01-01,42000.5\n2024-01-02,43000\n")).toEqual([
      { date: "2024-01-01", close: 42000.5 },
      { date: "2024-01-02", close: 43000 },
    ]);
  });

  it("keeps non-consecutive days as they are", () => {
    const rows = parsePriceCsv("date,close\n2024-01-01,1\n2024-01-05,2\n2024-03-01,3");
    expect(rows.map((r) => r.date)).toEqual(["2024-01-01", "2024-01-05", "2024-03-01"]);
  });

  it("tolerates CRLF, a byte-order mark, spaces, blank lines and exponents", () => {
    expect(parsePriceCsv("\uFEFFdate,close\r\n 2024-01-01 , 1.5e3 \r\n\r\n")).toEqual([
      { date: "2024-01-01", close: 1500 },
    ]);
  });

  it("rejects a bad header", () => {
    const error = errorOf("Date,Price\n2024-01-01,1\n");
    expect(error.line).toBe(1);
    expect(error.message).toMatch(/header/);
    expect(errorOf("").line).toBe(1);
  });

  it("rejects bad numbers", () => {
    for (const close of ["abc", "", "1,5", "-3", "0", "12x", "NaN", "Infinity", "0x10"]) {
      const error = errorOf(`date,close\n2024-01-01,1\n2024-01-02,${close}\n`);
      expect(error.line).toBe(3);
    }
  });

  it("rejects bad dates and dates out of order", () => {
    expect(errorOf("date,close\n2024-02-30,1\n").message).toMatch(/invalid date/);
    expect(errorOf("date,close\n24-01-01,1\n").message).toMatch(/invalid date/);
    expect(errorOf("date,close\n2024-01-02,1\n2024-01-01,1\n").message).toMatch(/does not come after/);
    expect(errorOf("date,close\n2024-01-02,1\n2024-01-02,1\n").line).toBe(3);
  });

  it("converts rows to price points at 00:00 UTC", () => {
    expect(rowsToPricePoints([{ date: "2024-01-02", close: 5 }])).toEqual([
      { time: 1_704_153_600, price: 5 },
    ]);
  });
});
