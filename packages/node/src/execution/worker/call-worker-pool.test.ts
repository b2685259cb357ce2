import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { createBlock } from "@ethereumjs/block";
import { bytesToHex } from "@ethereumjs/util";
import { TestToken } from "@strata/contracts";
import { CallRequest } from "@strata/protocol";
import { type Address, encodeFunctionData, type Hex, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { rpc, viemClients } from "../../e2e/clients.js";
import {
  ExecutionError,
  ExecutionTimeoutError,
  RequestCancelledError,
  RevertError,
} from "../../errors/domain-errors.js";
import { CALL_LOOPER_CODE } from "../../testing/heavy-code.js";
import { startTestNode, type TestNode } from "../../testing/test-node.js";
import { workerSettingsOf } from "../../testing/worker-settings.js";
import type { CallResult } from "../call/call-result-cache.js";
import { runLimit } from "../evm/run-limits.js";
import { CallWorkerPool } from "./call-worker-pool.js";

const HOLDER = "0x00000000000000000000000000000000000000aa";
// Creation code that returns blockhash(NUMBER - 1): NUMBER PUSH1 1 SWAP1 SUB BLOCKHASH PUSH0 MSTORE PUSH1 32 PUSH0 RETURN.
const PARENT_HASH_CODE = "0x4360019003405f5260205ff3";

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Deploys the looping contract on the node at `url`. */
async function deployLooper(url: string): Promise<Address> {
  const { wallet, publicClient } = viemClients(url);
  const hash = await wallet.sendTransaction({ data: CALL_LOOPER_CODE });
  return (await publicClient.waitForTransactionReceipt({ hash })).contractAddress!;
}

let datadir: string;
let t: TestNode;
let pool: CallWorkerPool;
let token: Address;
let looper: Address;
let beforeTransfer: bigint;

/** An eth_call through the node's HTTP API, which runs it on the main thread (no workers there). */
async function inThread(request: Record<string, unknown>, block: bigint) {
  return rpc(t.url, "eth_call", [request, `0x${block.toString(16)}`]);
}

/** The same call on the pool's workers. */
function onWorkers(request: Record<string, unknown>, block: bigint): Promise<CallResult | undefined> {
  const stored = t.node.chain.blockByNumber(block);
  if (!stored) throw new Error(`no block ${block}`);
  return pool.call(CallRequest.parse(request), stored, runLimit(5_000));
}

/** A pool of `workers` execution workers over the test node's store and settings. */
function workerPool(workers: number): CallWorkerPool {
  return new CallWorkerPool(workerSettingsOf(t, datadir), workers);
}

function ok(result: CallResult | undefined): Hex {
  if (!result || !("ok" in result)) throw new Error(`expected return data, got ${String(result)}`);
  return bytesToHex(result.ok) as Hex;
}

const balanceOf = (holder: string) => ({
  to: token,
  data: encodeFunctionData({ abi: TestToken.abi, functionName: "balanceOf", args: [holder as Address] }),
});

async function transfer(amount: bigint): Promise<bigint> {
  const { wallet, publicClient } = viemClients(t.url);
  const hash = await wallet.writeContract({
    chain: wallet.chain,
    address: token,
    abi: TestToken.abi,
    functionName: "transfer",
    args: [HOLDER, amount],
  });
  return (await publicClient.waitForTransactionReceipt({ hash })).blockNumber;
}

beforeAll(async () => {
  datadir = mkdtempSync(join(tmpdir(), "strata-call-workers-"));
  t = await startTestNode({ datadir, rpc: { callWorkers: 0 } });
  const { wallet, publicClient } = viemClients(t.url);
  const hash = await wallet.deployContract({
    abi: TestToken.abi,
    bytecode: TestToken.bytecode,
    args: ["W", "W", parseEther("100")],
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  token = receipt.contractAddress!;
  beforeTransfer = receipt.blockNumber;
  await transfer(1000n);
  looper = await deployLooper(t.url);
  pool = workerPool(2);
  await pool.ready();
});

afterAll(async () => {
  await pool?.close();
  await t?.stop();
  rmSync(datadir, { recursive: true, force: true });
});

describe("eth_call on worker threads", () => {
  it("answers as the main thread does, at the head and at past blocks", async () => {
    const head = t.node.chain.head.header.number;
    const atHead = ok(await onWorkers(balanceOf(HOLDER), head));
    expect(BigInt(atHead)).toBe(1000n);
    expect(atHead).toBe((await inThread(balanceOf(HOLDER), head)).result);
    const atPast = ok(await onWorkers(balanceOf(HOLDER), beforeTransfer));
    expect(BigInt(atPast)).toBe(0n);
    expect(atPast).toBe((await inThread(balanceOf(HOLDER), beforeTransfer)).result);
    expect(pool.dispatched).toBeGreaterThanOrEqual(2);
  });

  it("reports reverts with their reason and data, and failures with their message", async () => {
    const head = t.node.chain.head.header.number;
    const fail = {
      to: token,
      data: encodeFunctionData({ abi: TestToken.abi, functionName: "fail", args: ["no way"] }),
    };
    const reverted = await onWorkers(fail, head);
    const expected = await inThread(fail, head);
    expect(reverted && "error" in reverted && reverted.error).toBeInstanceOf(RevertError);
    const revert = (reverted as { error: RevertError }).error;
    expect(revert.message).toBe("execution reverted: no way");
    expect(revert.message).toBe(expected.error?.message);
    expect(bytesToHex(revert.data)).toBe((expected.error as { data?: string }).data);

    const boom = { to: token, data: encodeFunctionData({ abi: TestToken.abi, functionName: "boom" }) };
    const custom = (await onWorkers(boom, head)) as { error: RevertError };
    expect(bytesToHex(custom.error.data)).toBe((await inThread(boom, head)).error?.data);

    const starved = { ...balanceOf(HOLDER), gas: "0x55f0" };
    const failed = (await onWorkers(starved, head)) as { error: Error };
    expect(failed.error).toBeInstanceOf(ExecutionError);
    expect(failed.error.message).toBe((await inThread(starved, head)).error?.message);
  });

  it("sees the chain's block hashes (BLOCKHASH)", async () => {
    const head = t.node.chain.head.header.number;
    const parentHash = ok(await onWorkers({ data: PARENT_HASH_CODE }, head));
    expect(parentHash).toBe((await inThread({ data: PARENT_HASH_CODE }, head)).result);
    expect(parentHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(BigInt(parentHash)).not.toBe(0n);
  });

  it("sees a new head as soon as the node has committed it", async () => {
    for (let i = 1; i <= 3; i++) {
      const mined = await transfer(1n);
      expect(BigInt(ok(await onWorkers(balanceOf(HOLDER), mined)))).toBe(1000n + BigInt(i));
    }
  });

  it("stops a call at its time limit, and one that is called off, then goes on serving", async () => {
    const head = t.node.chain.head;
    const loop = CallRequest.parse({ to: looper });
    await expect(pool.call(loop, head, runLimit(200))).rejects.toBeInstanceOf(ExecutionTimeoutError);
    const controller = new AbortController();
    const called = pool.call(loop, head, runLimit(60_000, controller.signal));
    await wait(100);
    controller.abort();
    await expect(called).rejects.toBeInstanceOf(RequestCancelledError);
    const number = head.header.number;
    expect(ok(await onWorkers(balanceOf(HOLDER), number))).toBe(
      (await inThread(balanceOf(HOLDER), number)).result,
    );
  });

  it("does not count a worker's start against a call's time limit", async () => {
    // A call posted as a fresh pool starts waits for a worker: a limit shorter than the start must
    // still give the call its whole time once the worker is ready.
    const fresh = workerPool(1);
    try {
      const stored = t.node.chain.blockByNumber(t.node.chain.head.header.number)!;
      const answer = await fresh.call(CallRequest.parse(balanceOf(HOLDER)), stored, runLimit(300));
      // Earlier tests may have moved the holder's balance: the answer is the main thread's at that block.
      expect(ok(answer)).toBe((await inThread(balanceOf(HOLDER), stored.header.number)).result);
    } finally {
      await fresh.close();
    }
  });

  it("leaves a block it cannot see to the caller", async () => {
    const head = t.node.chain.head;
    const unknown = createBlock(
      { header: { ...head.header.toJSON(), number: head.header.number + 100n } },
      { common: head.common, skipConsensusFormatValidation: true },
    );
    expect(await pool.call(CallRequest.parse(balanceOf(HOLDER)), unknown, runLimit(5_000))).toBeUndefined();
  });

  it("closes its workers, then leaves every call to the caller; the node's store stays usable", async () => {
    const other = workerPool(1);
    await other.ready();
    const head = t.node.chain.head;
    expect(await other.call(CallRequest.parse(balanceOf(HOLDER)), head, runLimit(5_000))).toBeDefined();
    await other.close();
    expect(await other.call(CallRequest.parse(balanceOf(HOLDER)), head, runLimit(5_000))).toBeUndefined();
    expect(BigInt((await inThread(balanceOf(HOLDER), head.header.number)).result as string)).toBe(1003n);
  });

  it("closed while its workers start, lets them start and then closes them, terminating none", async () => {
    const terminate = vi.spyOn(Worker.prototype, "terminate");
    try {
      const starting = workerPool(2);
      starting.start();
      await starting.close();
      expect(terminate).not.toHaveBeenCalled();
      expect(starting.hasWorkers()).toBe(false);
    } finally {
      terminate.mockRestore();
    }
  });
});

describe("a node with a persistent store", () => {
  let dir: string;
  let n: TestNode;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "strata-call-workers-node-"));
    // One worker, calls of minutes of gas and no time limit to speak of: only a disconnect stops a
    // looping call before the next call, queued behind it on the worker, can run.
    n = await startTestNode({
      datadir: dir,
      rpc: { callWorkers: 1, evmTimeoutMs: 600_000, gasCap: 10_000_000_000n },
    });
  });
  afterAll(async () => {
    await n?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function workerCalls(): Promise<number> {
    const text = await (await fetch(n.url.replace(/\/?$/, "/metrics"))).text();
    return Number(/^strata_call_worker_calls_total (\d+)/m.exec(text)?.[1] ?? Number.NaN);
  }

  it("serves eth_call from its workers from the first call on, with the same answers", async () => {
    const { wallet, publicClient } = viemClients(n.url);
    const hash = await wallet.deployContract({
      abi: TestToken.abi,
      bytecode: TestToken.bytecode,
      args: ["N", "N", parseEther("7")],
    });
    const deployed = (await publicClient.waitForTransactionReceipt({ hash })).contractAddress!;
    // Distinct holders: a repeated call at one block is answered from the result cache.
    let holders = 0;
    const read = (holder?: Address) =>
      publicClient.readContract({
        address: deployed,
        abi: TestToken.abi,
        functionName: "balanceOf",
        args: [holder ?? `0x${(++holders).toString(16).padStart(40, "0")}`],
      });
    // The workers start with the node: not even the first call runs on the main thread.
    const first = await workerCalls();
    expect(await read()).toBe(0n);
    expect(await workerCalls()).toBe(first + 1);
    const before = await workerCalls();
    expect(await read(wallet.account.address)).toBe(parseEther("7"));
    await expect(
      publicClient.readContract({
        address: deployed,
        abi: TestToken.abi,
        functionName: "fail",
        args: ["from a worker"],
      }),
    ).rejects.toThrow(/from a worker/);
    expect(await workerCalls()).toBe(before + 2);
  });

  /** Calls until the worker has served one (it starts with the node, so the first call does). */
  async function untilWorkerServes(looping: Address): Promise<void> {
    let gas = 100_000;
    const deadline = Date.now() + 30_000;
    while ((await workerCalls()) === 0 && Date.now() < deadline) {
      await rpc(n.url, "eth_call", [{ to: looping, gas: `0x${(gas++).toString(16)}` }, "latest"]);
      await wait(50);
    }
  }

  /** A call queued behind a looping one on the worker: answered (out of gas) within seconds only if that one stopped. */
  async function nextCall(looping: Address): Promise<unknown> {
    const answer = rpc(n.url, "eth_call", [{ to: looping, gas: "0x30d40" }, "latest"]);
    const late = wait(10_000).then(() => ({ error: "no answer: the looping call still runs" }));
    return (await Promise.race([answer, late])) as { error?: unknown };
  }

  it("stops a worker's call when its HTTP client disconnects", async () => {
    const looping = await deployLooper(n.url);
    await untilWorkerServes(looping);
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "eth_call",
      params: [{ to: looping }, "latest"],
    });
    const gone = httpRequest(n.url, { method: "POST", headers: { "Content-Type": "application/json" } });
    gone.on("error", () => {});
    gone.end(body);
    await wait(300);
    gone.destroy();
    expect(await nextCall(looping)).toMatchObject({ error: { code: -32000, message: "out of gas" } });
  });

  it("stops a worker's call when its WebSocket closes", async () => {
    const looping = await deployLooper(n.url);
    await untilWorkerServes(looping);
    const ws = new WebSocket(n.url.replace(/^http/, "ws"));
    await new Promise((resolve) => ws.once("open", resolve));
    ws.send(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_call", params: [{ to: looping }, "latest"] }),
    );
    await wait(300);
    ws.terminate();
    expect(await nextCall(looping)).toMatchObject({ error: { code: -32000, message: "out of gas" } });
  });
});
