import { type Hex, numberToHex, parseTransaction } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccount, rpc } from "../e2e/clients.js";
import { startTestNode, type TestNode } from "../testing/test-node.js";

type Filled = { raw: Hex; tx: Record<string, unknown> };
type MinedTx = { type: Hex; maxFeePerGas?: Hex; maxPriorityFeePerGas?: Hex; authorizationList?: unknown[] };

/** eth_sendTransaction, eth_signTransaction and eth_fillTransaction fill a request the same way (geth's). */
describe("one transaction filler behind the three methods", () => {
  let t: TestNode;
  const from = devAccount(1).address.toLowerCase() as Hex;
  const to = devAccount(2).address.toLowerCase() as Hex;
  const accessList = [{ address: to, storageKeys: [`0x${"00".repeat(31)}01`] }];

  beforeAll(async () => {
    t = await startTestNode();
  });

  afterAll(() => t?.stop());

  const fill = async (request: Record<string, unknown>) =>
    (await rpc(t.url, "eth_fillTransaction", [request])).result as Filled;

  const sendAndRead = async (request: Record<string, unknown>): Promise<MinedTx> => {
    const sent = await rpc(t.url, "eth_sendTransaction", [request]);
    expect(sent.error).toBeUndefined();
    return (await rpc(t.url, "eth_getTransactionByHash", [sent.result])).result as MinedTx;
  };

  it("sends a legacy transaction when gasPrice is given, access list or not, as geth", async () => {
    const request = { from, to, gasPrice: "0x3b9aca00", accessList };
    expect((await fill(request)).tx.type).toBe("0x0");
    expect((await sendAndRead(request)).type).toBe("0x0");
  });

  it("sends a set-code transaction (type 4) for an authorization list", async () => {
    const authority = devAccount(5);
    const signed = await authority.signAuthorization!({ chainId: 1337, address: to, nonce: 0 });
    const authorization = {
      chainId: numberToHex(signed.chainId),
      address: signed.address,
      nonce: numberToHex(signed.nonce),
      yParity: numberToHex(signed.yParity ?? 0),
      r: numberToHex(BigInt(signed.r)),
      s: numberToHex(BigInt(signed.s)),
    };
    const request = { from, to: authority.address, authorizationList: [authorization] };
    expect(parseTransaction((await fill(request)).raw).type).toBe("eip7702");
    const mined = await sendAndRead(request);
    expect(mined.type).toBe("0x4");
    expect(mined.authorizationList).toHaveLength(1);
    expect((await rpc(t.url, "eth_getCode", [authority.address, "latest"])).result).toBe(
      `0xef0100${to.slice(2)}`,
    );
    const missingTo = { from, authorizationList: [authorization], data: "0x00" };
    for (const method of ["eth_fillTransaction", "eth_sendTransaction"]) {
      expect((await rpc(t.url, method, [missingTo])).error?.message).toBe(
        'missing "to" in set code transaction',
      );
    }
  });

  it("defaults maxFeePerGas to the tip plus twice the head's base fee, and refuses one below the tip", async () => {
    const head = (await rpc(t.url, "eth_getBlockByNumber", ["latest", false])).result as {
      baseFeePerGas: Hex;
    };
    const tip = BigInt((await rpc(t.url, "eth_maxPriorityFeePerGas", [])).result as Hex);
    const expected = numberToHex(tip + 2n * BigInt(head.baseFeePerGas));
    expect((await fill({ from, to })).tx.maxFeePerGas).toBe(expected);
    expect((await sendAndRead({ from, to })).maxFeePerGas).toBe(expected);
    const tooLow = { from, to, maxFeePerGas: "0x1" };
    const message = `maxFeePerGas (1) < maxPriorityFeePerGas (${tip})`;
    for (const method of ["eth_fillTransaction", "eth_sendTransaction"]) {
      expect((await rpc(t.url, method, [tooLow])).error).toEqual({ code: -32000, message });
    }
  });

  it("refuses another chain's id and a creation without data on every path", async () => {
    const signable = { from, to, gas: "0x5208", gasPrice: "0x1", nonce: "0x0" };
    const cases: [Record<string, unknown>, string][] = [
      [{ from, to, chainId: "0x1" }, "chainId does not match node's (have=1, want=1337)"],
      [{ from }, "contract creation without any data provided"],
    ];
    for (const [request, message] of cases) {
      for (const method of ["eth_fillTransaction", "eth_sendTransaction"]) {
        expect((await rpc(t.url, method, [request])).error).toEqual({ code: -32000, message });
      }
    }
    expect((await rpc(t.url, "eth_signTransaction", [{ ...signable, chainId: "0x1" }])).error?.message).toBe(
      "chainId does not match node's (have=1, want=1337)",
    );
  });
});
