import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRpc, rpc, viemClients } from "../e2e/clients.js";
import { startTestNode, type TestNode } from "../testing/test-node.js";

let t: TestNode;
let looper: string;

beforeAll(async () => {
  t = await startTestNode({ rpc: { maxQueueWaitMs: 100 } });
  const { wallet, publicClient } = viemClients(t.url);
  // Runtime code `JUMPDEST PUSH1 0 JUMP`: loops until the gas runs out.
  const hash = await wallet.sendTransaction({ data: "0x635b6000566000526004601cf3" });
  looper = (await publicClient.waitForTransactionReceipt({ hash })).contractAddress!;
});
afterAll(() => t.stop());

describe("call execution limits", () => {
  it("stops a call at the gas cap with geth's out-of-gas error", async () => {
    const response = await rpc(t.url, "eth_call", [{ to: looper, gas: "0x989680" }, "latest"]);
    expect(response.error).toEqual({ code: -32000, message: "out of gas" });
  });

  it("refuses calls that waited too long for the execution queue, and keeps serving", async () => {
    const batch = [0, 1, 2, 3].map((id) => ({
      jsonrpc: "2.0",
      id,
      method: "eth_call",
      // Distinct gas limits: identical calls at one block would be answered from the result cache.
      params: [{ to: looper, gas: `0x${(10_000_001 + id).toString(16)}` }, "latest"],
    }));
    const responses = (await rawRpc(t.url, JSON.stringify(batch))).body as {
      error?: { code: number; message: string };
    }[];
    const refused = responses.filter((r) => r.error?.code === -32005);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.error).toMatchObject({
      message: "execution queue wait exceeded 100 ms",
      data: { limit: "executionQueue" },
    });
    expect(responses[0]!.error?.message).toBe("out of gas");
    expect((await rpc(t.url, "eth_blockNumber")).result).toMatch(/^0x/);
  });

  it("reports a gas allowance that is too small for an estimate", async () => {
    const response = await rpc(t.url, "eth_estimateGas", [{ to: looper, gas: "0x186a0" }]);
    expect(response.error?.code).toBe(-32000);
    expect(response.error?.message).toBe("out of gas");
  });
});
