import { describe, expect, it } from "vitest";
import { compareResponse } from "./compare.js";

const revert = '{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted","data":"0x01"}}';

describe("schema-only comparison", () => {
  it("passes an error answer when the expected answer is an error too", () => {
    expect(compareResponse("eth_estimateGas", revert, revert, true)).toEqual({ pass: true });
  });

  it("fails an error answer where a result is expected, and a result where an error is expected", () => {
    const result = '{"jsonrpc":"2.0","id":1,"result":"0x5208"}';
    expect(compareResponse("eth_estimateGas", revert, result, true).pass).toBe(false);
    expect(compareResponse("eth_estimateGas", result, revert, true).pass).toBe(false);
  });
});
