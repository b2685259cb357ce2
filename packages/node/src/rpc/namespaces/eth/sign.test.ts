import { type Hex, keccak256, parseTransaction, recoverTransactionAddress, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccount, rpc } from "../../../e2e/clients.js";
import { startTestNode, type TestNode } from "../../../testing/test-node.js";

type Signed = { raw: Hex; tx: Record<string, unknown> & { hash: Hex } };

describe("eth_sign, eth_signTransaction, eth_fillTransaction", () => {
  let t: TestNode;
  const account = devAccount(1);
  const from = account.address.toLowerCase() as Hex;
  const to = devAccount(2).address.toLowerCase() as Hex;

  beforeAll(async () => {
    t = await startTestNode();
  });

  afterAll(() => t?.stop());

  it("eth_sign produces the account's EIP-191 signature, byte for byte", async () => {
    const { result } = await rpc(t.url, "eth_sign", [from, "0xdeadbeaf"]);
    expect(result).toBe(await account.signMessage({ message: { raw: "0xdeadbeaf" } }));
    expect(["1b", "1c"]).toContain((result as string).slice(-2));
  });

  it("eth_signTransaction signs exactly what a local wallet would sign", async () => {
    const request = {
      from,
      to,
      gas: "0x5208",
      maxFeePerGas: "0x77359400",
      maxPriorityFeePerGas: "0x1",
      nonce: "0x3",
      value: "0x7",
    };
    const { result, error } = await rpc(t.url, "eth_signTransaction", [request]);
    expect(error).toBeUndefined();
    const { raw, tx } = result as Signed;
    const local = await account.signTransaction({
      chainId: 1337,
      type: "eip1559",
      to,
      gas: 21000n,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1n,
      nonce: 3,
      value: 7n,
    });
    expect(raw).toBe(local);
    expect(await recoverTransactionAddress({ serializedTransaction: raw as never })).toBe(account.address);
    expect(tx).toMatchObject({
      type: "0x2",
      chainId: "0x539",
      nonce: "0x3",
      to,
      gas: "0x5208",
      gasPrice: null,
      maxFeePerGas: "0x77359400",
      maxPriorityFeePerGas: "0x1",
      value: "0x7",
      input: "0x",
      accessList: [],
      hash: keccak256(raw),
    });
    expect(tx.v).toBe(tx.yParity);
  });

  it("eth_signTransaction signs legacy transactions with EIP-155", async () => {
    const request = { from, to, gas: "0x5208", gasPrice: "0x3b9aca00", nonce: "0x0" };
    const { raw, tx } = (await rpc(t.url, "eth_signTransaction", [request])).result as Signed;
    expect(parseTransaction(raw).type).toBe("legacy");
    expect(tx).toMatchObject({ type: "0x0", chainId: "0x539", maxFeePerGas: null, gasPrice: "0x3b9aca00" });
    expect(BigInt(tx.v as Hex)).toBeGreaterThan(1337n * 2n);
    // The signed transaction is valid on the chain.
    const sent = await rpc(t.url, "eth_sendRawTransaction", [raw]);
    expect(sent.result).toBe(tx.hash);
  });

  it("eth_signTransaction requires gas, fees and nonce, and a known account", async () => {
    const full = { from, to, gas: "0x5208", gasPrice: "0x1", nonce: "0x0" };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...full, gas: undefined }, "gas not specified"],
      [{ ...full, gasPrice: undefined }, "missing gasPrice or maxFeePerGas/maxPriorityFeePerGas"],
      [{ ...full, nonce: undefined }, "nonce not specified"],
      [{ ...full, from: "0x0000000000000000000000000000000000000bad" }, "unknown account"],
    ];
    for (const [request, message] of cases) {
      expect((await rpc(t.url, "eth_signTransaction", [request])).error).toEqual({ code: -32000, message });
    }
    expect(
      (await rpc(t.url, "eth_sign", ["0x0000000000000000000000000000000000000bad", "0x00"])).error,
    ).toEqual({
      code: -32000,
      message: "unknown account",
    });
  });

  it("eth_fillTransaction fills nonce, gas and fees and returns the unsigned transaction", async () => {
    const { result, error } = await rpc(t.url, "eth_fillTransaction", [{ from, to, value: toHex(5n) }]);
    expect(error).toBeUndefined();
    const { raw, tx } = result as Signed;
    const nonce = (await rpc(t.url, "eth_getTransactionCount", [from, "pending"])).result;
    expect(tx).toMatchObject({
      type: "0x2",
      nonce,
      gas: "0x5208",
      value: "0x5",
      v: "0x0",
      r: "0x0",
      s: "0x0",
    });
    expect(BigInt(tx.maxFeePerGas as Hex)).toBeGreaterThan(BigInt(tx.maxPriorityFeePerGas as Hex));
    expect(tx.hash).toBe(keccak256(raw));
    const parsed = parseTransaction(raw);
    expect(parsed.to).toBe(to);
    expect(parsed.value).toBe(5n);
    expect((await rpc(t.url, "eth_fillTransaction", [{ from }])).error).toEqual({
      code: -32000,
      message: "contract creation without any data provided",
    });
    expect((await rpc(t.url, "eth_fillTransaction", [{ from, to, chainId: "0x1" }])).error?.message).toBe(
      "chainId does not match node's (have=1, want=1337)",
    );
  });
});
