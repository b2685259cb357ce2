import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRpc, rpc, viemClients } from "../../e2e/clients.js";
import { CALL_LOOPER_CODE, CALL_LOOPER_RUNTIME } from "../../testing/heavy-code.js";
import { startTestNode, type TestNode } from "../../testing/test-node.js";
import { interpreterPrototype } from "../evm/evm-internals.js";

let t: TestNode;
let looper: string;

/** Deploys {@link CALL_LOOPER_RUNTIME} (loops until the gas runs out) on the node at `url`. */
async function deployLooper(url: string): Promise<string> {
  const { wallet, publicClient } = viemClients(url);
  const hash = await wallet.sendTransaction({ data: CALL_LOOPER_CODE });
  return (await publicClient.waitForTransactionReceipt({ hash })).contractAddress!;
}

beforeAll(async () => {
  // A wall-clock limit far beyond the 10M-gas loops below: they end out of gas however slow or busy
  // the machine (the limit itself is tested with a node of its own further down).
  t = await startTestNode({ rpc: { maxQueueWaitMs: 100, evmTimeoutMs: 120_000 } });
  looper = await deployLooper(t.url);
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

describe("call wall-clock limit", () => {
  let limited: TestNode;
  let loop: string;

  beforeAll(async () => {
    limited = await startTestNode({ rpc: { evmTimeoutMs: 300 } });
    loop = await deployLooper(limited.url);
  });
  afterAll(() => limited.stop());

  it("stops calls, estimates and access lists that run past it with -32000 execution timeout", async () => {
    const timeout = { code: -32000, message: "execution timeout" };
    expect((await rpc(limited.url, "eth_call", [{ to: loop }, "latest"])).error).toEqual(timeout);
    // A contract creation whose init code loops: the full-transaction path.
    expect((await rpc(limited.url, "eth_call", [{ data: CALL_LOOPER_RUNTIME }, "latest"])).error).toEqual(
      timeout,
    );
    expect((await rpc(limited.url, "eth_estimateGas", [{ to: loop }])).error).toEqual(timeout);
    expect((await rpc(limited.url, "eth_createAccessList", [{ to: loop }])).error).toEqual(timeout);
  });

  it("runs later calls as before, and does not remember a timeout as the call's outcome", async () => {
    await rpc(limited.url, "eth_call", [{ to: loop }, "latest"]);
    const outOfGas = await rpc(limited.url, "eth_call", [{ to: loop, gas: "0x186a0" }, "latest"]);
    expect(outOfGas.error).toEqual({ code: -32000, message: "out of gas" });
    const again = await rpc(limited.url, "eth_call", [{ to: loop }, "latest"]);
    expect(again.error).toEqual({ code: -32000, message: "execution timeout" });
  });
});

describe("gas estimates", () => {
  // Runtime code that writes slot 0 twice: the second SSTORE costs 100 gas but needs more than
  // EIP-2200's 2,300 left, so the least limit that succeeds is above the gas the run uses.
  const WRITER = "0x6a6001600055600260005500600052600b6015f3";

  /** Counts the top-level interpreter runs of `work` (one per transaction run). */
  async function countingRuns<T>(work: () => Promise<T>): Promise<{ value: T; runs: number }> {
    const prototype = (await interpreterPrototype()) as { run: (...args: unknown[]) => Promise<unknown> };
    const run = prototype.run;
    let runs = 0;
    prototype.run = function (this: { _env: { depth: number } }, ...args: unknown[]) {
      if (this._env.depth === 0) runs++;
      return run.apply(this, args);
    };
    try {
      return { value: await work(), runs };
    } finally {
      prototype.run = run;
    }
  }

  async function deploy(code: string): Promise<string> {
    const { wallet, publicClient } = viemClients(t.url);
    const hash = await wallet.sendTransaction({ data: code as `0x${string}` });
    return (await publicClient.waitForTransactionReceipt({ hash })).contractAddress!;
  }

  const call = (to: string, gas: bigint) =>
    rpc(t.url, "eth_call", [{ to, gas: `0x${gas.toString(16)}` }, "latest"]);

  it("answers the least limit that succeeds after one interpreter run when nothing the run read depends on the limit", async () => {
    const writer = await deploy(WRITER);
    const { value: estimate, runs } = await countingRuns(async () =>
      BigInt((await rpc(t.url, "eth_estimateGas", [{ to: writer }, "latest"])).result as string),
    );
    expect(runs).toBe(1);
    expect((await call(writer, estimate)).error).toBeUndefined();
    expect((await call(writer, estimate - 1n)).error?.message).toBe("out of gas");
  });

  it("checks the predicted limit, and searches past it, for code that branches on the gas left", async () => {
    // Writes a slot only when less than 100,000 gas is left: at the cap it stops at once, so the
    // limit predicted from that run starves the write the code makes at that limit.
    const brancher = await deploy("0x70620186a05a10600a57005b6001600055006000526011600ff3");
    const { value: estimate, runs } = await countingRuns(async () =>
      BigInt((await rpc(t.url, "eth_estimateGas", [{ to: brancher }, "latest"])).result as string),
    );
    expect(runs).toBeGreaterThan(2);
    expect(estimate).toBeGreaterThan(21_000n + 22_100n);
    expect((await call(brancher, estimate)).error).toBeUndefined();
  });
});
