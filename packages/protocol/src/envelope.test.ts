import { describe, expect, it } from "vitest";
import { encodeError, encodeResult, isRejected, parseBody, type RpcRequest } from "./envelope.js";
import { ErrorCode, InvalidParamsError } from "./errors.js";

function single(text: string) {
  const parsed = parseBody(text, 1000);
  if (parsed.kind !== "single") throw new Error(`expected single, got ${parsed.kind}`);
  return parsed.entry;
}

describe("parseBody", () => {
  it("parses a request and keeps its id text", () => {
    const entry = single('{"jsonrpc":"2.0","id":7,"method":"eth_chainId","params":[]}') as RpcRequest;
    expect(entry.method).toBe("eth_chainId");
    expect(entry.idJson).toBe("7");
    expect(entry.notification).toBe(false);
  });

  it("echoes ids beyond 2^53 and fractional ids exactly as sent", () => {
    const big = single('{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"m"}');
    expect(big.idJson).toBe("123456789012345678901234567890");
    const frac = single('{"jsonrpc":"2.0","method":"m","id" : 1.5}');
    expect(frac.idJson).toBe("1.5");
    const parsed = parseBody(
      '[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":99999999999999999999,"method":"b","params":[{"id":5}]}]',
      10,
    );
    if (parsed.kind !== "batch") throw new Error("expected batch");
    expect(parsed.entries.map((e) => e.idJson)).toEqual(["1", "99999999999999999999"]);
  });

  it("echoes string and null ids", () => {
    expect(single('{"jsonrpc":"2.0","id":"abc","method":"m"}').idJson).toBe('"abc"');
    expect(single('{"jsonrpc":"2.0","id":null,"method":"m"}').idJson).toBe("null");
  });

  it("treats a request without id as a notification", () => {
    expect(single('{"jsonrpc":"2.0","method":"m"}').notification).toBe(true);
  });

  it("answers invalid JSON with -32700", () => {
    const parsed = parseBody("{not json", 10);
    expect(parsed.kind).toBe("invalid");
    if (parsed.kind === "invalid") expect(parsed.error.code).toBe(ErrorCode.ParseError);
  });

  it("refuses empty and oversize batches with -32600", () => {
    const empty = parseBody("[]", 10);
    const big = parseBody(
      JSON.stringify(Array.from({ length: 11 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "m" }))),
      10,
    );
    for (const parsed of [empty, big]) {
      expect(parsed.kind).toBe("invalid");
      if (parsed.kind === "invalid") expect(parsed.error.code).toBe(ErrorCode.InvalidRequest);
    }
    if (big.kind === "invalid") expect(big.error.message).toBe("batch too large");
  });

  it.each([
    ['{"jsonrpc":"1.0","id":1,"method":"m"}', ErrorCode.InvalidRequest],
    ['{"id":1,"method":"m"}', ErrorCode.InvalidRequest],
    ['{"jsonrpc":"2.0","id":1}', ErrorCode.InvalidRequest],
    ['{"jsonrpc":"2.0","id":{},"method":"m"}', ErrorCode.InvalidRequest],
    ['{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}', ErrorCode.InvalidRequest],
    ['{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}}', ErrorCode.InvalidParams],
    ["42", ErrorCode.InvalidRequest],
  ])("rejects %s", (text, code) => {
    const entry = single(text);
    expect(isRejected(entry)).toBe(true);
    if (isRejected(entry)) expect(entry.error.code).toBe(code);
  });

  it("keeps __proto__ keys as plain data", () => {
    const entry = single(
      '{"jsonrpc":"2.0","id":1,"method":"m","params":[{"__proto__":{"polluted":true}}]}',
    ) as RpcRequest;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(entry.params[0])).toBe(Object.prototype);
  });
});

describe("encoding", () => {
  it("builds result and error envelopes", () => {
    expect(JSON.parse(encodeResult("1", '"0x1"'))).toEqual({ jsonrpc: "2.0", id: 1, result: "0x1" });
    expect(JSON.parse(encodeError('"a"', new InvalidParamsError("bad")))).toEqual({
      jsonrpc: "2.0",
      id: "a",
      error: { code: -32602, message: "bad" },
    });
  });
});
