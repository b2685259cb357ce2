import { describe, expect, it } from "vitest";
import {
  Address,
  BlockNumberOrTag,
  BlockSpec,
  CallRequest,
  describeIssue,
  Hash32,
  LogFilter,
  Quantity,
  StorageSlot,
} from "./schemas.js";

function problem(
  schema: { safeParse(v: unknown): { success: boolean; error?: unknown } },
  value: unknown,
): string {
  const result = schema.safeParse(value);
  if (result.success) throw new Error("expected a failure");
  return describeIssue(result.error as never);
}

describe("schemas", () => {
  it("normalises addresses and names wrong lengths", () => {
    expect(Address.parse("0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266")).toBe(
      "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
    );
    expect(problem(Address, "0x1234")).toBe("hex string has length 4, want 40 for common.Address");
    expect(problem(Address, "f39fd6e51aad88f6f4ce6ab8827279cfffb92266")).toBe("hex string without 0x prefix");
    expect(problem(Address, 5)).toContain("cannot unmarshal number");
  });

  it("checks hash lengths", () => {
    expect(problem(Hash32, `0x${"ab".repeat(31)}`)).toContain("want 64 for common.Hash");
  });

  it.each(["0x", "0x01", "1", `0x${"f".repeat(100)}`])("rejects the quantity %s", (value) => {
    expect(Quantity.safeParse(value).success).toBe(false);
  });

  it("decodes block selectors", () => {
    expect(BlockNumberOrTag.parse("latest")).toEqual({ tag: "latest" });
    expect(BlockNumberOrTag.parse("0x10")).toEqual({ number: 16n });
    expect(problem(BlockNumberOrTag, "newest")).toBe('invalid block number or tag "newest"');
    const hash = `0x${"11".repeat(32)}`;
    expect(BlockSpec.parse(hash)).toEqual({ hash, requireCanonical: false });
    expect(BlockSpec.parse({ blockHash: hash, requireCanonical: true })).toEqual({
      hash,
      requireCanonical: true,
    });
    expect(BlockSpec.parse({ blockNumber: "0x2" })).toEqual({ number: 2n });
    expect(BlockSpec.safeParse({ blockHash: hash, blockNumber: "0x1" }).success).toBe(false);
  });

  it("accepts storage slots with leading zeros", () => {
    expect(StorageSlot.parse(`0x${"0".repeat(63)}1`)).toBe(1n);
    expect(StorageSlot.parse("0x0")).toBe(0n);
    expect(StorageSlot.safeParse(`0x${"1".repeat(65)}`).success).toBe(false);
  });

  it("refuses a call object with conflicting data and input or fee fields", () => {
    expect(problem(CallRequest, { input: "0x01", data: "0x02" })).toContain(
      'both "data" and "input" are set',
    );
    expect(problem(CallRequest, { gasPrice: "0x1", maxFeePerGas: "0x1" })).toContain("both gasPrice and");
    expect(CallRequest.parse({ to: null, value: "0x1" })).toEqual({ to: null, value: 1n });
  });

  it("accepts topic OR-lists and nulls in log filters", () => {
    const topic = `0x${"22".repeat(32)}`;
    expect(LogFilter.parse({ topics: [null, [topic, null], topic] }).topics).toEqual([
      null,
      [topic, null],
      topic,
    ]);
    expect(LogFilter.safeParse({ address: "0x12" }).success).toBe(false);
  });
});
