import type { Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpc, viemClients } from "../../e2e/clients.js";
import { startTestNode, type TestNode } from "../../testing/test-node.js";

/** Init code that deploys `runtime` unchanged. */
function deployable(runtime: string): Hex {
  const length = (runtime.length / 2).toString(16).padStart(2, "0");
  return `0x60${length}600c60003960${length}6000f3${runtime}`;
}

/** `Error("no")` revert data. */
const ERROR_NO = `08c379a0${"20".padStart(64, "0")}${"2".padStart(64, "0")}${"6e6f".padEnd(64, "0")}`;
/** Stores 0x2a in slot 0. */
const STORE = "602a60005500";
/** Emits an empty LOG0, then reverts with `Error("no")`. */
const REVERTER = `6064601160003960006000a060646000fd${ERROR_NO}`;
const call = (address: string) => `6000600060006000600073${address.slice(2)}5af150`;
/** LOG1(topic 1), CALL store, CALL reverter, LOG0, STOP. */
const parent = (store: string, reverter: string) =>
  `600160006000a1${call(store)}${call(reverter)}60006000a000`;

let t: TestNode;
let store: string;
let caller: string;
let storeTx: Hex;
let callerTx: Hex;
let sender: string;

async function deploy(runtime: string): Promise<string> {
  const { wallet, publicClient } = viemClients(t.url);
  const hash = await wallet.sendTransaction({ data: deployable(runtime) });
  return (await publicClient.waitForTransactionReceipt({ hash })).contractAddress!;
}

async function send(to: string): Promise<Hex> {
  const { wallet, publicClient } = viemClients(t.url);
  const hash = await wallet.sendTransaction({ to: to as Hex, gas: 200_000n });
  await publicClient.waitForTransactionReceipt({ hash });
  return hash;
}

async function result<T>(method: string, params: unknown[]): Promise<T> {
  const response = await rpc(t.url, method, params);
  if (response.error) throw new Error(JSON.stringify(response.error));
  return response.result as T;
}

beforeAll(async () => {
  t = await startTestNode();
  sender = viemClients(t.url).wallet.account.address.toLowerCase();
  store = await deploy(STORE);
  const reverter = await deploy(REVERTER);
  caller = await deploy(parent(store, reverter));
  storeTx = await send(store);
  callerTx = await send(caller);
});
afterAll(() => t.stop());

interface StructLogs {
  gas: number;
  failed: boolean;
  returnValue: string;
  structLogs: {
    pc: number;
    op: string;
    gas: number;
    gasCost: number;
    depth: number;
    error?: string;
    stack?: string[];
    storage?: object;
  }[];
}

describe("struct logger", () => {
  it("logs each opcode of a known bytecode with geth's gas figures", async () => {
    const trace = await result<StructLogs>("debug_traceTransaction", [storeTx]);
    const receipt = await result<{ gasUsed: string }>("eth_getTransactionReceipt", [storeTx]);
    expect(trace.gas).toBe(Number(receipt.gasUsed));
    expect(trace.failed).toBe(false);
    expect(trace.returnValue).toBe("0x");
    expect(trace.structLogs.map((l) => [l.pc, l.op, l.gasCost, l.depth])).toEqual([
      [0, "PUSH1", 3, 1],
      [2, "PUSH1", 3, 1],
      [4, "SSTORE", 22_100, 1],
      [5, "STOP", 0, 1],
    ]);
    const [first, , sstore] = trace.structLogs;
    expect(first!.gas).toBe(200_000 - 21_000);
    expect(sstore!.gas).toBe(200_000 - 21_000 - 6);
    expect(sstore!.stack).toEqual(["0x2a", "0x0"]);
    expect(sstore!.storage).toEqual({ [`0x${"0".repeat(64)}`]: `0x${"2a".padStart(64, "0")}` });
    expect(trace.gas).toBe(21_000 + 3 + 3 + 22_100);
  });

  it("honours disableStack, disableStorage and enableMemory", async () => {
    const trace = await result<StructLogs>("debug_traceTransaction", [
      storeTx,
      { disableStack: true, disableStorage: true, enableMemory: true },
    ]);
    expect(trace.structLogs[2]).toEqual({ pc: 4, op: "SSTORE", gas: 178_994, gasCost: 22_100, depth: 1 });
  });

  it("marks the opcode that ran out of gas and reports the failure", async () => {
    const { wallet, publicClient } = viemClients(t.url);
    // Runtime `JUMPDEST PUSH1 0 JUMP`: loops until the gas runs out.
    const looper = await deploy("5b600056");
    const hash = await wallet.sendTransaction({ to: looper as Hex, gas: 30_000n });
    await publicClient.waitForTransactionReceipt({ hash });
    const trace = await result<StructLogs & { structLogs: { error?: string }[] }>("debug_traceTransaction", [
      hash,
    ]);
    expect(trace).toMatchObject({ gas: 30_000, failed: true, returnValue: "0x" });
    const last = trace.structLogs[trace.structLogs.length - 1]!;
    expect(last.error).toBe("out of gas");
    expect(trace.structLogs.filter((l) => l.error !== undefined)).toHaveLength(1);
  });

  it("adds the forwarded gas to a CALL's cost and logs the callee at depth 2", async () => {
    const trace = await result<StructLogs>("debug_traceTransaction", [callerTx]);
    const firstCall = trace.structLogs.findIndex((l) => l.op === "CALL");
    const callLog = trace.structLogs[firstCall]!;
    const calleeFirst = trace.structLogs[firstCall + 1]!;
    expect(calleeFirst.depth).toBe(2);
    // The callee starts with what the CALL forwarded: cost = access + forwarded gas.
    expect(callLog.gasCost - calleeFirst.gas).toBe(2_600);
  });
});

interface Frame {
  type: string;
  from: string;
  to?: string;
  gas: string;
  gasUsed: string;
  input: string;
  output?: string;
  error?: string;
  revertReason?: string;
  value?: string;
  calls?: Frame[];
  logs?: { address: string; topics: string[]; data: string; index: string; position: string }[];
}

describe("callTracer", () => {
  it("returns nested calls with a revert and the logs of frames that did not fail", async () => {
    const trace = await result<Frame>("debug_traceTransaction", [
      callerTx,
      { tracer: "callTracer", tracerConfig: { withLog: true } },
    ]);
    const receipt = await result<{ gasUsed: string }>("eth_getTransactionReceipt", [callerTx]);
    expect(trace).toMatchObject({
      type: "CALL",
      from: sender,
      to: caller,
      gas: "0x30d40",
      gasUsed: receipt.gasUsed,
      input: "0x",
      value: "0x0",
    });
    expect(trace.calls).toHaveLength(2);
    expect(trace.calls![0]).toEqual({
      type: "CALL",
      from: caller,
      to: store,
      gas: trace.calls![0]!.gas,
      // Slot 0 already holds 0x2a from the earlier transaction: the SSTORE is a no-op (2,100 + 100).
      gasUsed: "0x89e",
      input: "0x",
      value: "0x0",
    });
    expect(trace.calls![1]).toMatchObject({
      type: "CALL",
      from: caller,
      error: "execution reverted",
      revertReason: "no",
      output: `0x${ERROR_NO}`,
    });
    expect(trace.calls![1]!.logs).toBeUndefined();
    const topic1 = `0x${"1".padStart(64, "0")}`;
    expect(trace.logs).toEqual([
      { address: caller, topics: [topic1], data: "0x", index: "0x0", position: "0x0" },
      { address: caller, topics: [], data: "0x", index: "0x1", position: "0x2" },
    ]);
  });

  it("keeps only the top call with onlyTopCall", async () => {
    const trace = await result<Frame>("debug_traceTransaction", [
      callerTx,
      { tracer: "callTracer", tracerConfig: { onlyTopCall: true, withLog: true } },
    ]);
    expect(trace.calls).toBeUndefined();
    expect(trace.logs).toHaveLength(2);
  });

  it("traces a call on a block's state", async () => {
    const trace = await result<Frame>("debug_traceCall", [
      { from: sender, to: store, gas: "0x30d40" },
      "latest",
      { tracer: "callTracer" },
    ]);
    // Slot 0 already holds 0x2a: a cold SSTORE of the same value costs 2,100 + 100.
    expect(trace).toMatchObject({ type: "CALL", from: sender, to: store, gasUsed: "0x5aa6" });
  });
});

describe("debug_traceCall state overrides", () => {
  it("runs the call against overridden code and storage, leaving the chain untouched", async () => {
    const target = "0x00000000000000000000000000000000000000d1";
    const trace = await result<Frame>("debug_traceCall", [
      { from: sender, to: target, gas: "0x30d40" },
      "latest",
      { tracer: "callTracer", stateOverrides: { [target]: { code: `0x${STORE}` } } },
    ]);
    // A cold SSTORE of a new non-zero value: 21,000 + 3 + 3 + 22,100.
    expect(trace.gasUsed).toBe("0xa862");
    const withSlot = await result<Frame>("debug_traceCall", [
      { from: sender, to: target, gas: "0x30d40" },
      "latest",
      {
        tracer: "callTracer",
        stateOverrides: {
          [target]: { code: `0x${STORE}`, state: { [`0x${"0".repeat(64)}`]: `0x${"2a".padStart(64, "0")}` } },
        },
      },
    ]);
    expect(withSlot.gasUsed).toBe("0x5aa6");
    expect(await result("eth_getCode", [target, "latest"])).toBe("0x");
  });
});

describe("prestateTracer", () => {
  it("reports what the transaction read, and in diff mode what it changed", async () => {
    const pre = await result<
      Record<string, { balance: string; nonce?: number; storage?: object; code?: string }>
    >("debug_traceTransaction", [storeTx, { tracer: "prestateTracer" }]);
    expect(pre[store]).toMatchObject({ balance: "0x0", nonce: 1, code: `0x${STORE}` });
    expect(pre[store]!.storage).toEqual({ [`0x${"0".repeat(64)}`]: `0x${"0".repeat(64)}` });
    expect(pre[sender]!.nonce).toBeGreaterThan(0);

    const diff = await result<{ pre: Record<string, object>; post: Record<string, object> }>(
      "debug_traceTransaction",
      [storeTx, { tracer: "prestateTracer", tracerConfig: { diffMode: true } }],
    );
    expect(diff.post[store]).toEqual({ storage: { [`0x${"0".repeat(64)}`]: `0x${"2a".padStart(64, "0")}` } });
    expect(diff.pre[store]).not.toHaveProperty("storage");
    expect(diff.post[sender]).toHaveProperty("nonce");
    expect(diff.post[sender]).toHaveProperty("balance");
  });
});

describe("block tracing and errors", () => {
  it("traces every transaction of a block by number and by hash", async () => {
    const tx = await result<{ blockNumber: string; blockHash: string }>("eth_getTransactionByHash", [
      storeTx,
    ]);
    const byNumber = await result<{ txHash: string; result: Frame }[]>("debug_traceBlockByNumber", [
      tx.blockNumber,
      { tracer: "callTracer" },
    ]);
    expect(byNumber.map((e) => e.txHash)).toContain(storeTx);
    const byHash = await result<unknown>("debug_traceBlockByHash", [tx.blockHash, { tracer: "callTracer" }]);
    expect(byHash).toEqual(byNumber);
  });

  it("answers geth's errors", async () => {
    const missing = `0x${"11".repeat(32)}`;
    expect((await rpc(t.url, "debug_traceTransaction", [missing])).error).toEqual({
      code: -32000,
      message: "transaction not found",
    });
    expect((await rpc(t.url, "debug_traceBlockByNumber", ["0x0"])).error?.message).toBe(
      "genesis is not traceable",
    );
    expect((await rpc(t.url, "debug_traceBlockByNumber", ["0xffff"])).error?.message).toBe(
      "block #65535 not found",
    );
    expect((await rpc(t.url, "debug_traceTransaction", [storeTx, { timeout: "abc" }])).error?.message).toBe(
      'time: invalid duration "abc"',
    );
    expect((await rpc(t.url, "debug_traceTransaction", [storeTx, { timeout: "1ns" }])).error).toEqual({
      code: -32000,
      message: "execution timeout",
    });
    expect(
      (await rpc(t.url, "debug_traceTransaction", [storeTx, { tracer: "nope" }])).error?.message,
    ).toMatch(/^tracer not found: nope/);
    expect(
      (
        await rpc(t.url, "debug_traceTransaction", [
          storeTx,
          { tracer: "prestateTracer", tracerConfig: { diffMode: true, includeEmpty: true } },
        ])
      ).error?.message,
    ).toBe("cannot use diffMode with includeEmpty");
  });
});
