import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Hex, hexToBytes, parseEther, parseGwei } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect, it } from "vitest";
import { rpc } from "../../e2e/clients.js";
import { startTestNode } from "../../testing/test-node.js";

const RECIPIENT = "0x00000000000000000000000000000000000000b0";
/** More blocks than an execution worker keeps the start-of-block writes of (STEPS_KEPT). */
const BLOCKS_AFTER = 20;

async function result<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await rpc(url, method, params);
  if (response.error) throw new Error(`${method}: ${response.error.message}`);
  return response.result as T;
}

/**
 * In manual mining, `anvil_setBalance` funds a new account and a transfer from it waits in the pool:
 * one block applies the edit at its start, then runs the transfer. Returns the transfer's hash.
 */
async function fundAndSpendInOneBlock(url: string): Promise<Hex> {
  const account = privateKeyToAccount(generatePrivateKey());
  await result(url, "anvil_setBalance", [account.address, `0x${parseEther("1").toString(16)}`]);
  const raw = await account.signTransaction({
    chainId: Number(await result<Hex>(url, "eth_chainId")),
    type: "eip1559",
    nonce: 0,
    to: RECIPIENT,
    value: parseEther("0.25"),
    gas: 21_000n,
    maxFeePerGas: parseGwei("100"),
    maxPriorityFeePerGas: parseGwei("1"),
  });
  const hash = await result<Hex>(url, "eth_sendRawTransaction", [raw]);
  await result(url, "evm_mine");
  const receipt = await result<{ status: Hex; blockNumber: Hex }>(url, "eth_getTransactionReceipt", [hash]);
  expect(receipt.status).toBe("0x1");
  return hash;
}

async function traceOf(url: string, hash: Hex): Promise<{ from: string; value: string; error?: string }> {
  return result(url, "debug_traceTransaction", [hash, { tracer: "callTracer" }]);
}

describe("traces of blocks that applied dev state edits", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("replay the edits with the block, on the main thread; evm_revert drops them with the block", async () => {
    const t = await startTestNode({ mining: { mode: "manual" } });
    try {
      const snapshot = await result<Hex>(t.url, "evm_snapshot");
      const hash = await fundAndSpendInOneBlock(t.url);
      const blockHash = (await result<{ blockHash: Hex }>(t.url, "eth_getTransactionReceipt", [hash]))
        .blockHash;
      expect(t.node.chain.store.stateEdits(hexToBytes(blockHash))?.map((edit) => edit.kind)).toEqual([
        "balance",
      ]);
      const trace = await traceOf(t.url, hash);
      expect(trace.error).toBeUndefined();
      expect(BigInt(trace.value)).toBe(parseEther("0.25"));
      const [blockTrace] = await result<{ result: { error?: string } }[]>(t.url, "debug_traceBlockByNumber", [
        "latest",
        { tracer: "callTracer" },
      ]);
      expect(blockTrace!.result.error).toBeUndefined();
      expect(await result(t.url, "evm_revert", [snapshot])).toBe(true);
      expect(t.node.chain.store.stateEdits(hexToBytes(blockHash))).toBeUndefined();
    } finally {
      await t.stop();
    }
  });

  it("replay the edits with the block in execution workers, after the block's step is gone", async () => {
    const datadir = await mkdtemp(join(tmpdir(), "strata-edits-replay-"));
    dirs.push(datadir);
    const t = await startTestNode({ datadir, mining: { mode: "manual" }, rpc: { callWorkers: 1 } });
    try {
      const hash = await fundAndSpendInOneBlock(t.url);
      await result(t.url, "anvil_mine", [`0x${BLOCKS_AFTER.toString(16)}`]);
      const trace = await traceOf(t.url, hash);
      expect(trace.error).toBeUndefined();
      expect(BigInt(trace.value)).toBe(parseEther("0.25"));
    } finally {
      await t.stop();
    }
  });
});
