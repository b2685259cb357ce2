import type { Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpc, viemClients } from "../../e2e/clients.js";
import { startTestNode, type TestNode } from "../../testing/test-node.js";

/** Init code that deploys `runtime` unchanged. */
function deployable(runtime: string): Hex {
  const length = (runtime.length / 2).toString(16).padStart(2, "0");
  return `0x60${length}600c60003960${length}6000f3${runtime}`;
}

/** Emits an empty LOG0, then stores 0x2a in slot 0. */
const LOG_AND_STORE = "60006000a0602a60005500";

let t: TestNode;
let contract: string;
const hashes: Hex[] = [];

async function result<T>(method: string, params: unknown[]): Promise<T> {
  const response = await rpc(t.url, method, params);
  if (response.error) throw new Error(JSON.stringify(response.error));
  return response.result as T;
}

beforeAll(async () => {
  t = await startTestNode({ mining: { mode: "manual" } });
  const { wallet, publicClient } = viemClients(t.url);
  const deploy = await wallet.sendTransaction({ data: deployable(LOG_AND_STORE), gas: 100_000n });
  await result("evm_mine", []);
  contract = (await publicClient.waitForTransactionReceipt({ hash: deploy })).contractAddress!;
  for (let i = 0; i < 3; i++)
    hashes.push(await wallet.sendTransaction({ to: contract as Hex, gas: 100_000n }));
  await result("evm_mine", []);
  for (const hash of hashes) await publicClient.waitForTransactionReceipt({ hash });
});
afterAll(() => t.stop());

describe("tracing a transaction in the middle of a block", () => {
  it("replays the block's earlier transactions first", async () => {
    const receipts = await Promise.all(
      hashes.map((hash) =>
        result<{ blockNumber: string; gasUsed: string }>("eth_getTransactionReceipt", [hash]),
      ),
    );
    expect(new Set(receipts.map((r) => r.blockNumber)).size).toBe(1);
    // The first transaction sets the slot; the later ones find it set, and so use less gas.
    expect(receipts[1]!.gasUsed).not.toBe(receipts[0]!.gasUsed);
    for (const [i, hash] of hashes.entries()) {
      const trace = await result<{ gasUsed: string; logs: { index: string }[] }>("debug_traceTransaction", [
        hash,
        { tracer: "callTracer", tracerConfig: { withLog: true } },
      ]);
      expect(trace.gasUsed).toBe(receipts[i]!.gasUsed);
      expect(trace.logs.map((l) => l.index)).toEqual([`0x${i}`]);
    }
  });

  it("traces every transaction of the block in order, with the same results", async () => {
    const receipt = await result<{ blockNumber: string }>("eth_getTransactionReceipt", [hashes[0]]);
    const traces = await result<{ txHash: string; result: { gasUsed: string } }[]>(
      "debug_traceBlockByNumber",
      [receipt.blockNumber, { tracer: "callTracer" }],
    );
    expect(traces.map((e) => e.txHash)).toEqual(hashes);
    const single = await result<{ gasUsed: string }>("debug_traceTransaction", [
      hashes[2],
      { tracer: "callTracer" },
    ]);
    expect(traces[2]!.result.gasUsed).toBe(single.gasUsed);
  });

  it("traces transactions of one block in any order, again and again, as the block trace does", async () => {
    const receipt = await result<{ blockNumber: string }>("eth_getTransactionReceipt", [hashes[0]]);
    const options = { tracer: "prestateTracer", tracerConfig: { diffMode: true } };
    const block = await result<{ result: unknown }[]>("debug_traceBlockByNumber", [
      receipt.blockNumber,
      options,
    ]);
    // A kept replay moves forward from the last traced transaction; an earlier one starts afresh.
    for (const i of [2, 1, 1, 2, 0, 2]) {
      const trace = await result<unknown>("debug_traceTransaction", [hashes[i], options]);
      expect(trace, `transaction ${i}`).toEqual(block[i]!.result);
    }
  });
});
