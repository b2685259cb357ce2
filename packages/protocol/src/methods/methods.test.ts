import { describe, expect, expectTypeOf, it } from "vitest";
import { InvalidParamsError, RpcError } from "../errors.js";
import type { Validator } from "../objects/staking.js";
import { rpcBatch, rpcCall, rpcRequest } from "./client.js";
import { decodeParams } from "./decode.js";
import { type MethodResult, NODE_METHODS, WIRE_METHODS } from "./table.js";

const ADDRESS = "0x00000000000000000000000000000000000000aa";

/** A transport that records the body it is sent and answers `reply(body)`. */
function transport(reply: (request: { id: number; method: string }[]) => unknown) {
  const sent: string[] = [];
  const send = async (body: string) => {
    sent.push(body);
    const answer = reply(JSON.parse(body) as { id: number; method: string }[]);
    return typeof answer === "string" ? answer : JSON.stringify(answer);
  };
  return { send, sent };
}

const invalid = (reason: string) => new Error(`invalid: ${reason}`);

describe("the wire method table", () => {
  it("holds the node's methods and the gateway's api_ methods, each with a result schema", () => {
    expect(Object.keys(WIRE_METHODS)).toEqual(expect.arrayContaining(["api_getBalance", "eth_call"]));
    expect(Object.keys(NODE_METHODS)).not.toContain("api_getBalance");
    for (const [name, spec] of Object.entries(WIRE_METHODS)) {
      expect(spec.required, name).toBeLessThanOrEqual(spec.params.length);
      expect(spec.result, name).toBeDefined();
    }
  });

  it("types params as sent and results as answered", () => {
    expectTypeOf(rpcRequest("eth_getBalance", ADDRESS)).toMatchTypeOf<{ method: "eth_getBalance" }>();
    rpcRequest("eth_getBalance", ADDRESS, "latest");
    // @ts-expect-error the address is required
    rpcRequest("eth_getBalance");
    // @ts-expect-error eth_blockNumber takes no parameters
    rpcRequest("eth_blockNumber", "0x1");
    expectTypeOf<MethodResult<"svc_getValidators">>().toEqualTypeOf<Validator[]>();
    expectTypeOf<MethodResult<"eth_blockNumber">>().toEqualTypeOf<`0x${string}`>();
  });
});

describe("decodeParams", () => {
  const spec = NODE_METHODS.eth_getBalance;

  it("decodes each argument with its schema; an absent or null optional one is undefined", () => {
    expect(decodeParams(spec, [ADDRESS.toUpperCase().replace("0X", "0x")])).toEqual([ADDRESS, undefined]);
    expect(decodeParams(spec, [ADDRESS, null])).toEqual([ADDRESS, undefined]);
    expect(decodeParams(spec, [ADDRESS, "0x10"])).toEqual([ADDRESS, { number: 16n }]);
  });

  it("refuses with -32602 naming the argument, as geth words it", () => {
    const refusal = (params: unknown[]) => {
      try {
        decodeParams(spec, params);
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidParamsError);
        return (error as InvalidParamsError).message;
      }
      throw new Error("accepted");
    };
    expect(refusal([ADDRESS, "latest", 1])).toBe("too many arguments, want at most 2");
    expect(refusal([])).toBe("missing value for required argument 0");
    expect(refusal(["0x12"])).toBe("invalid argument 0: hex string has length 2, want 40 for common.Address");
  });
});

describe("rpcBatch", () => {
  it("sends one batch with ids 0..n-1 and settles answers by id, whatever their order", async () => {
    const t = transport((calls) =>
      [...calls].reverse().map((c) => ({ jsonrpc: "2.0", id: c.id, result: `${c.method}:${c.id}` })),
    );
    const [a, b] = await rpcBatch(
      t.send,
      [rpcRequest("eth_chainId"), rpcRequest("eth_getBalance", ADDRESS, "latest")],
      invalid,
    );
    expect([a, b]).toEqual(["eth_chainId:0", "eth_getBalance:1"]);
    expect(JSON.parse(t.sent[0]!)).toEqual([
      { jsonrpc: "2.0", id: 0, method: "eth_chainId", params: [] },
      { jsonrpc: "2.0", id: 1, method: "eth_getBalance", params: [ADDRESS, "latest"] },
    ]);
  });

  it("settles a node's error as an RpcError with its code, message and data", async () => {
    const t = transport(() => [{ id: 0, error: { code: 3, message: "execution reverted", data: "0x01" } }]);
    const [answer] = await rpcBatch(t.send, [rpcRequest("eth_call", { to: ADDRESS })], invalid);
    expect(answer).toBeInstanceOf(RpcError);
    expect(answer).toMatchObject({ code: 3, message: "execution reverted", data: "0x01" });
  });

  it("settles every call with the error of a body refused whole, and bad answers with invalid()", async () => {
    const refused = transport(() => ({ id: null, error: { code: -32005, message: "limit exceeded" } }));
    const settled = await rpcBatch(
      refused.send,
      [rpcRequest("eth_chainId"), rpcRequest("net_version")],
      invalid,
    );
    expect(settled.map((s) => (s as RpcError).code)).toEqual([-32005, -32005]);

    const partial = transport(() => [{ id: 0, result: "0x1" }]);
    expect(
      await rpcBatch(partial.send, [rpcRequest("eth_chainId"), rpcRequest("net_version")], invalid),
    ).toEqual(["0x1", new Error("invalid: no answer to net_version")]);
    const notJson = transport(() => "<html>");
    expect(await rpcBatch(notJson.send, [rpcRequest("eth_chainId")], invalid)).toEqual([
      new Error("invalid: answer is not JSON"),
    ]);
    const notBatch = transport(() => ({ id: 0, result: "0x1" }));
    expect(await rpcBatch(notBatch.send, [rpcRequest("eth_chainId")], invalid)).toEqual([
      new Error("invalid: answer to a batch is not an array"),
    ]);
  });
});

describe("rpcCall", () => {
  it("returns the result, or throws the node's error", async () => {
    const ok = transport(() => [{ id: 0, result: "0x539" }]);
    await expect(rpcCall(ok.send, "eth_chainId", [], invalid)).resolves.toBe("0x539");
    const failing = transport(() => [{ id: 0, error: { code: -32601, message: "no such method" } }]);
    await expect(rpcCall(failing.send, "eth_chainId", [], invalid)).rejects.toMatchObject({ code: -32601 });
  });
});
