import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestNode, type TestNode } from "../../testing/test-node.js";

describe("CallExecutor VMs", () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode();
  });
  afterAll(async () => {
    await node.stop();
  });

  const rpc = async (method: string, params: unknown[] = []) => {
    const response = await fetch(node.url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    return ((await response.json()) as { result?: unknown; error?: unknown }).result;
  };

  it("leave nothing attached to the chain's shared rules when calls move on to new blocks", async () => {
    const common = node.node.chain.common;
    const listeners = () => common.events.listenerCount("hardforkChanged");
    await rpc("eth_call", [{ to: "0x00000000000000000000000000000000000000aa", data: "0x" }, "latest"]);
    const before = listeners();
    for (let i = 0; i < 30; i++) {
      await rpc("evm_mine");
      // A new head: the call runs on a new VM, and the svc_ modules' reads on another.
      expect(
        await rpc("eth_call", [{ to: "0x00000000000000000000000000000000000000aa", data: "0x" }, "latest"]),
      ).toBe("0x");
      await rpc("svc_getValidators");
    }
    expect(listeners()).toBeLessThanOrEqual(before);
  });
});
