import type { CallRequest } from "@strata/protocol";
import { describe, expect, it } from "vitest";
import { CallResultCache } from "./call-result-cache.js";

const blockA = new Uint8Array(32).fill(1);
const blockB = new Uint8Array(32).fill(2);
const request: CallRequest = {
  to: "0x00000000000000000000000000000000000000aa",
  input: "0x70a08231",
  gas: 100_000n,
};

describe("CallResultCache", () => {
  it("keys outcomes by block and by every request field", () => {
    const cache = new CallResultCache();
    cache.set(blockA, request, { ok: Uint8Array.of(1) });
    expect(cache.get(blockA, request)).toEqual({ ok: Uint8Array.of(1) });
    expect(cache.get(blockB, request)).toBeUndefined();
    expect(cache.get(blockA, { ...request, gas: 100_001n })).toBeUndefined();
    expect(
      cache.get(blockA, { ...request, from: "0x00000000000000000000000000000000000000bb" }),
    ).toBeUndefined();
  });

  it("keeps errors as outcomes too", () => {
    const cache = new CallResultCache();
    const error = new Error("execution reverted");
    cache.set(blockA, request, { error });
    expect(cache.get(blockA, request)).toEqual({ error });
  });

  it("evicts the oldest entry past its capacity and skips oversized results", () => {
    const cache = new CallResultCache(2, 1024 * 1024, 4);
    cache.set(blockA, request, { ok: Uint8Array.of(1) });
    cache.set(blockB, request, { ok: Uint8Array.of(2) });
    cache.set(blockA, { ...request, gas: 1n }, { ok: Uint8Array.of(3) });
    expect(cache.get(blockA, request)).toBeUndefined();
    expect(cache.get(blockB, request)).toEqual({ ok: Uint8Array.of(2) });
    cache.set(blockB, { ...request, gas: 2n }, { ok: new Uint8Array(5) });
    expect(cache.get(blockB, { ...request, gas: 2n })).toBeUndefined();
  });

  const sizeOf = (cache: CallResultCache, name: string) =>
    cache
      .boundedStructures()
      .find((s) => s.name === name)!
      .size();

  it("stays at its entry bound when filled past it", () => {
    const cache = new CallResultCache(100);
    for (let i = 0; i < 1_000; i++)
      cache.set(blockA, { ...request, gas: BigInt(i) }, { ok: Uint8Array.of(1) });
    expect(sizeOf(cache, "call_results")).toBe(100);
  });

  it("stays under its byte bound when filled with large requests", () => {
    const maxBytes = 1024 * 1024;
    const cache = new CallResultCache(10_000, maxBytes);
    const input = `0x${"ab".repeat(20_000)}` as const;
    for (let i = 0; i < 1_000; i++)
      cache.set(blockA, { ...request, input, gas: BigInt(i) }, { ok: new Uint8Array(1_000) });
    expect(sizeOf(cache, "call_results_bytes")).toBeLessThanOrEqual(maxBytes);
    expect(sizeOf(cache, "call_results_bytes")).toBeGreaterThan(maxBytes / 2);
    expect(sizeOf(cache, "call_results")).toBeLessThan(30);
  });
});
