import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  addressParam,
  assetParam,
  blockIdParam,
  enumQuery,
  limitQuery,
  parseParams,
  pathSegment,
  positionCursor,
  searchTermQuery,
  tokenCursor,
} from "./params.js";

const refusal = (shape: z.ZodRawShape, raw: Record<string, string | undefined>) => {
  try {
    parseParams(z.object(shape), raw);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("accepted");
};

describe("REST parameters", () => {
  it("decodes what they accept: lowercased addresses, numbers, positions, defaults", () => {
    const shape = { address: addressParam, limit: limitQuery, cursor: positionCursor };
    expect(parseParams(z.object(shape), { address: `0x${"AB".repeat(20)}`, cursor: "12:3" })).toEqual({
      address: `0x${"ab".repeat(20)}`,
      limit: 25,
      cursor: { block: 12n, index: 3 },
    });
    expect(parseParams(z.object({ id: blockIdParam }), { id: "0x10" })).toEqual({ id: 16n });
    expect(parseParams(z.object({ asset: assetParam }), { asset: "stra" })).toEqual({ asset: "STRA" });
    expect(parseParams(z.object({ q: searchTermQuery }), { q: "  ttk " })).toEqual({ q: "ttk" });
  });

  it("refuses with a 400 message naming the parameter and the value", () => {
    expect(refusal({ limit: limitQuery }, { limit: "0" })).toBe(
      'limit: expected an integer in 1..100, got "0"',
    );
    expect(refusal({ limit: limitQuery }, { limit: "1e1" })).toBe(
      'limit: expected an integer in 1..100, got "1e1"',
    );
    expect(refusal({ address: addressParam }, { address: "0xnothex" })).toBe(
      'address: expected a 0x-prefixed 20-byte hex address, got "0xnothex"',
    );
    expect(refusal({ numberOrHash: blockIdParam }, { numberOrHash: "latest" })).toBe(
      'numberOrHash: expected a block number or a 32-byte block hash, got "latest"',
    );
    expect(refusal({ type: enumQuery(z.enum(["compute", "storage"]), "t") }, { type: "toaster" })).toBe(
      'type: expected one of compute, storage, got "toaster"',
    );
    expect(refusal({ cursor: tokenCursor }, { cursor: "garbage" })).toBe(
      'cursor: not a cursor this API returned: "garbage"',
    );
    expect(refusal({ asset: assetParam }, { asset: "NOT-A-SYMBOL" })).toBe(
      'asset: expected a symbol such as STRA, got "NOT-A-SYMBOL"',
    );
    expect(refusal({ q: searchTermQuery }, {})).toBe(
      "q: expected a block number, a hash, an address or a token symbol",
    );
    expect(() => pathSegment("%zz", "asset")).toThrow('asset: bad percent-encoding in "%zz"');
  });
});
