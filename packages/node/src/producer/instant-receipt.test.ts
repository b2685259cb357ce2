import { type Hex, parseGwei } from "viem";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { devAccount, rpc } from "../e2e/clients.js";
import { BlockExecutor } from "../execution/block/block-executor.js";
import { startTestNode, type TestNode } from "../testing/test-node.js";

let t: TestNode;
let nonce = 0;

function signedTransfer(): Promise<Hex> {
  return devAccount(3).signTransaction({
    chainId: 1337,
    type: "eip1559",
    nonce: nonce++,
    to: devAccount(4).address,
    value: 1n,
    gas: 21_000n,
    maxFeePerGas: parseGwei("10"),
    maxPriorityFeePerGas: parseGwei("1"),
  });
}

/** A WebSocket JSON-RPC session answering one request at a time. */
async function wsSession(url: string) {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  let id = 0;
  return {
    call(method: string, params: unknown[]): Promise<{ result?: unknown; error?: { message: string } }> {
      const request = { jsonrpc: "2.0", id: ++id, method, params };
      return new Promise((resolve) => {
        ws.once("message", (data) => resolve(JSON.parse(String(data))));
        ws.send(JSON.stringify(request));
      });
    },
    close: () => ws.close(),
  };
}

// Blocks take 50 ms more to build: without waiting for its block, the answer would come first.
const build = BlockExecutor.prototype.build;
const slow = vi.spyOn(BlockExecutor.prototype, "build").mockImplementation(async function (
  this: BlockExecutor,
  ...args: Parameters<BlockExecutor["build"]>
) {
  await new Promise((resolve) => setTimeout(resolve, 50));
  return build.apply(this, args);
});

beforeAll(async () => {
  t = await startTestNode({ mining: { mode: "instant" } });
});

afterAll(async () => {
  await t.stop();
  slow.mockRestore();
});

describe("instant mining answers a submission once it is mined", () => {
  it("over HTTP: the receipt is there right after eth_sendRawTransaction and eth_sendTransaction", async () => {
    for (let i = 0; i < 5; i++) {
      const hash = (await rpc(t.url, "eth_sendRawTransaction", [await signedTransfer()])).result as Hex;
      const receipt = (await rpc(t.url, "eth_getTransactionReceipt", [hash])).result as {
        status: Hex;
      } | null;
      expect(receipt?.status).toBe("0x1");
    }
    const sent = await rpc(t.url, "eth_sendTransaction", [
      { from: devAccount(0).address, to: devAccount(5).address, value: "0x1" },
    ]);
    expect((await rpc(t.url, "eth_getTransactionReceipt", [sent.result])).result).not.toBeNull();
  });

  it("over WebSocket: the receipt is there right after the answer", async () => {
    const session = await wsSession(t.wsUrl);
    try {
      for (let i = 0; i < 5; i++) {
        const hash = (await session.call("eth_sendRawTransaction", [await signedTransfer()])).result;
        const receipt = (await session.call("eth_getTransactionReceipt", [hash])).result as {
          status: Hex;
        } | null;
        expect(receipt?.status).toBe("0x1");
      }
      const sent = await session.call("eth_sendTransaction", [
        { from: devAccount(0).address, to: devAccount(5).address, value: "0x1" },
      ]);
      expect((await session.call("eth_getTransactionReceipt", [sent.result])).result).not.toBeNull();
    } finally {
      session.close();
    }
  });
});
