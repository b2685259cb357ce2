import { type Hex, parseGwei } from "viem";
import { afterEach, describe, expect, it, vi } from "vitest";
import { devAccount, rpc } from "../../e2e/clients.js";
import { startTestNode, type TestNode } from "../../testing/test-node.js";
import { TracingService } from "./tracing-service.js";

/** Creation code returning `runtime` (PUSH2 length, DUP1, PUSH1 12, PUSH1 0, CODECOPY, PUSH1 0, RETURN). */
function creation(runtime: string): Hex {
  const length = (runtime.length / 2).toString(16).padStart(4, "0");
  return `0x61${length}80600c6000396000f3${runtime}`;
}

/** Reverts with the 4 bytes 0xdeadbeef. */
const REVERTER = "63deadbeef6000526004601cfd";
/** Logs one word under topic 1, then calls `target` (which reverts), then stops. */
const caller = (target: string) => `6001602060006000a160006000600060006000${`73${target}`}5af15000`;

async function result<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await rpc(url, method, params);
  if (response.error) throw new Error(`${method}: ${response.error.message}`);
  return response.result as T;
}

describe("call traces recorded while mining (dev)", () => {
  let t: TestNode | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await t?.stop();
  });

  it("answer debug_traceTransaction as a replay would, without replaying, and only while the block stands", async () => {
    t = await startTestNode({ mining: { mode: "instant" } });
    const { url } = t;
    const account = devAccount(0);
    const chainId = Number(await result<Hex>(url, "eth_chainId"));
    let nonce = Number(await result<Hex>(url, "eth_getTransactionCount", [account.address, "latest"]));
    const send = async (fields: { to?: Hex; data?: Hex; value?: bigint }) => {
      const raw = await account.signTransaction({
        chainId,
        type: "eip1559",
        nonce: nonce++,
        gas: 300_000n,
        maxFeePerGas: parseGwei("100"),
        maxPriorityFeePerGas: parseGwei("1"),
        ...fields,
      });
      const hash = await result<Hex>(url, "eth_sendRawTransaction", [raw]);
      return result<{ transactionHash: Hex; blockHash: Hex; contractAddress: Hex | null; status: Hex }>(
        url,
        "eth_getTransactionReceipt",
        [hash],
      );
    };
    const snapshot = await result<Hex>(url, "evm_snapshot");
    const reverter = await send({ data: creation(REVERTER) });
    const outer = await send({ data: creation(caller(reverter.contractAddress!.slice(2))) });
    const called = await send({ to: outer.contractAddress!, data: "0x01" });
    const reverted = await send({ to: reverter.contractAddress!, data: "0x02" });
    const transfer = await send({ to: "0x00000000000000000000000000000000000000b0", value: 1n });
    expect([called.status, reverted.status]).toEqual(["0x1", "0x0"]);

    const replays = vi.spyOn(TracingService.prototype, "traceTransaction");
    for (const receipt of [reverter, outer, called, reverted]) {
      const recorded = await result(url, "debug_traceTransaction", [
        receipt.transactionHash,
        { tracer: "callTracer" },
      ]);
      // A block trace always replays the block.
      const [entry] = await result<{ result: unknown }[]>(url, "debug_traceBlockByHash", [
        receipt.blockHash,
        { tracer: "callTracer" },
      ]);
      expect(recorded).toEqual(entry!.result);
    }
    expect(replays).not.toHaveBeenCalled();
    const nested = (await result(url, "debug_traceTransaction", [
      called.transactionHash,
      { tracer: "callTracer", tracerConfig: { withLog: false } },
    ])) as { calls: { error: string; output: string }[] };
    expect(nested.calls[0]).toMatchObject({ error: "execution reverted", output: "0xdeadbeef" });
    expect(replays).not.toHaveBeenCalled();

    // A plain transfer, and any other tracer or option, is replayed.
    await result(url, "debug_traceTransaction", [transfer.transactionHash, { tracer: "callTracer" }]);
    await result(url, "debug_traceTransaction", [
      called.transactionHash,
      { tracer: "callTracer", tracerConfig: { withLog: true } },
    ]);
    await result(url, "debug_traceTransaction", [called.transactionHash, { tracer: "prestateTracer" }]);
    expect(replays).toHaveBeenCalledTimes(3);

    // Once evm_revert removes the blocks, their transactions are unknown again, recorded or not.
    expect(await result(url, "evm_revert", [snapshot])).toBe(true);
    const gone = await rpc(url, "debug_traceTransaction", [called.transactionHash, { tracer: "callTracer" }]);
    expect(gone.error?.message).toMatch(/not found/);
  });
});
