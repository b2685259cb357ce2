/**
 * Hostile input: requests that execute as much EVM code as they are allowed to. Each runs at its
 * limit (endless loops at the gas cap, a client trace `timeout` of 30 s) while a prober asks for
 * `eth_blockNumber`: the thread answering requests never runs EVM code, so the prober is answered
 * within 250 ms (generous: an answer takes about a millisecond; a main thread running EVM code for
 * the node's 1.5 s limit would hold it for over a second), and interval mining goes on.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Address, getContractAddress, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CALL_LOOPER_CODE } from "../testing/heavy-code.js";
import { startTestNode, type TestNode } from "../testing/test-node.js";
import { rpc, viemClients } from "./clients.js";

/** The node's maximum time for a trace, a call, an estimate, a simulation and a block build. */
const LIMIT_MS = 1_500;
/** Most struct-logger entries one trace may return here. */
const MAX_STEPS = 20_000;
/**
 * Most struct-logger bytes one trace may return here: more than {@link MAX_STEPS} entries of the
 * looper take (about 80 bytes each), so only entries carrying memory reach it first.
 */
const MAX_BYTES = 4 * 1024 * 1024;
const PROBE_BOUND_MS = 250;
/**
 * Most time the node's thread may be busy during one attack (probes, answers, block production:
 * tens of milliseconds here); half the limit, where a run on that thread would take all of it.
 */
const BUSY_BOUND_MS = LIMIT_MS / 2;

interface RpcAnswer {
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

let dir: string;
let t: TestNode;
let looper: Address;

beforeAll(async () => {
  // A persistent store: execution workers read the chain from it (they cannot see a memory store).
  dir = mkdtempSync(join(tmpdir(), "strata-hostile-execution-"));
  t = await startTestNode({
    datadir: dir,
    mining: { mode: "interval", blockTimeSeconds: 1 },
    rpc: {
      callWorkers: 2,
      evmTimeoutMs: LIMIT_MS,
      traceTimeoutMs: LIMIT_MS,
      traceMaxSteps: MAX_STEPS,
      traceMaxBytes: MAX_BYTES,
    },
  });
  const { wallet, publicClient } = viemClients(t.url);
  const hash = await wallet.sendTransaction({ data: CALL_LOOPER_CODE });
  looper = (await publicClient.waitForTransactionReceipt({ hash })).contractAddress!;
}, 60_000);

afterAll(async () => {
  await t?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function blockNumber(): Promise<bigint> {
  return BigInt((await rpc(t.url, "eth_blockNumber")).result as string);
}

/**
 * How many blocks were sealed since `startBlock`, giving the interval producer up to one slot more
 * to seal the block it is due (an attack shorter than a slot may end before one).
 */
async function blocksSince(startBlock: bigint): Promise<bigint> {
  const deadline = performance.now() + 1_100;
  let blocks = (await blockNumber()) - startBlock;
  while (blocks === 0n && performance.now() < deadline) {
    await wait(50);
    blocks = (await blockNumber()) - startBlock;
  }
  return blocks;
}

/**
 * Runs `attack` while probing `eth_blockNumber` every 20 ms: the attack's answers, how long it
 * took, the slowest probe, how many blocks were produced meanwhile, and how long the node's thread
 * was busy (an attack run on it keeps it busy for its whole limit, even where the interpreter
 * awaits between steps and so lets probes through).
 */
async function underProbe(attack: () => Promise<RpcAnswer[]>) {
  const startBlock = await blockNumber();
  // The node runs in this thread: the time its event loop is busy is the time its thread works.
  const loopBefore = performance.eventLoopUtilization();
  const started = performance.now();
  let done = false;
  let slowest = 0;
  let probes = 0;
  const prober = (async () => {
    while (!done) {
      const sent = performance.now();
      await rpc(t.url, "eth_blockNumber");
      slowest = Math.max(slowest, performance.now() - sent);
      probes++;
      await wait(20);
    }
  })();
  const answers = await attack().finally(() => {
    done = true;
  });
  const elapsed = performance.now() - started;
  await prober;
  const busyMs = performance.eventLoopUtilization(loopBefore).active;
  const blocks = await blocksSince(startBlock);
  return { answers, elapsed, slowest, probes, blocks, busyMs };
}

function call(method: string, params: unknown[]): Promise<RpcAnswer> {
  return rpc(t.url, method, params) as Promise<RpcAnswer>;
}

/** Every request below runs for as long as the node allows. */
const attacks: Record<string, () => Promise<RpcAnswer>> = {
  "debug_traceCall (callTracer, client timeout 30s)": () =>
    call("debug_traceCall", [{ to: looper }, "latest", { tracer: "callTracer", timeout: "30s" }]),
  "debug_traceCall (prestateTracer, client timeout 30s)": () =>
    call("debug_traceCall", [{ to: looper }, "latest", { tracer: "prestateTracer", timeout: "30s" }]),
  "debug_traceCall (struct logger)": () =>
    call("debug_traceCall", [{ to: looper }, "latest", { timeout: "30s", disableStorage: true }]),
  "eth_simulateV1 (a 50M-gas loop)": () =>
    call("eth_simulateV1", [
      {
        blockStateCalls: [
          { blockOverrides: { gasLimit: "0x2faf080" }, calls: [{ to: looper, gas: "0x2faf080" }] },
        ],
      },
      "latest",
    ]),
  "eth_call (endless loop at the gas cap)": () => call("eth_call", [{ to: looper }, "latest"]),
  "eth_estimateGas (endless loop)": () => call("eth_estimateGas", [{ to: looper }, "latest"]),
  "eth_createAccessList (endless loop)": () => call("eth_createAccessList", [{ to: looper }, "latest"]),
  // `pending` is the next block, which the node's thread does not have stored: workers make it.
  "eth_estimateGas (endless loop, no tag: the pending block)": () =>
    call("eth_estimateGas", [{ to: looper }]),
  "eth_call (endless loop at pending)": () => call("eth_call", [{ to: looper }, "pending"]),
  "eth_createAccessList (endless loop at pending)": () =>
    call("eth_createAccessList", [{ to: looper }, "pending"]),
};

describe("heavy execution at its limit", () => {
  for (const [name, attack] of Object.entries(attacks)) {
    it(`${name}: stops at the node's limit while eth_blockNumber answers and blocks go on`, async () => {
      const { answers, elapsed, slowest, blocks, busyMs } = await underProbe(async () => [await attack()]);
      const [answer] = answers;
      // Stopped by the node: a timeout at its limit, the struct logger's entry cap, or out of gas.
      expect(answer?.error, JSON.stringify(answer)).toBeDefined();
      expect(answer!.error!.message).toMatch(/execution timeout|struct log|out of gas|gas required exceeds/);
      expect(elapsed).toBeLessThan(LIMIT_MS + 2_000);
      expect(slowest, `slowest probe ${slowest.toFixed(0)} ms`).toBeLessThan(PROBE_BOUND_MS);
      expect(busyMs, `node's thread busy ${busyMs.toFixed(0)} ms`).toBeLessThan(BUSY_BOUND_MS);
      expect(blocks).toBeGreaterThan(0n);
    }, 20_000);
  }

  it("with pool transactions in the pending block: endless loops at pending and pending reads leave the node's thread free", async () => {
    const { wallet, publicClient } = viemClients(t.url);
    const recipient = "0x00000000000000000000000000000000000000bb";
    // Mining paused, so the transactions stay in the pool and the pending block holds them.
    await rpc(t.url, "evm_setIntervalMining", [0]);
    let last: Hex | undefined;
    try {
      const nonce = await publicClient.getTransactionCount({ address: wallet.account.address });
      for (let i = 0; i < 3; i++) {
        last = await wallet.sendTransaction({ to: recipient, value: 1_000n, nonce: nonce + i });
      }
      // Reads first: they share the execution queue, behind which the loops would keep them waiting.
      const { answers, elapsed, slowest, busyMs } = await underProbe(async () => [
        ...(await Promise.all([
          call("eth_getBalance", [recipient, "pending"]),
          call("eth_getBlockByNumber", ["pending", false]),
        ])),
        ...(await Promise.all([
          call("eth_estimateGas", [{ to: looper }]),
          call("eth_call", [{ to: looper }, "pending"]),
        ])),
      ]);
      const [balance, block, estimate, loop] = answers;
      expect(BigInt(balance?.result as string)).toBe(3_000n);
      expect((block?.result as { transactions: unknown[] } | undefined)?.transactions).toHaveLength(3);
      expect(estimate?.error?.message).toMatch(/execution timeout|out of gas|gas required exceeds/);
      expect(loop?.error?.message).toMatch(/execution timeout|out of gas/);
      expect(elapsed).toBeLessThan(LIMIT_MS + 2_000);
      expect(slowest).toBeLessThan(PROBE_BOUND_MS);
      expect(busyMs, `node's thread busy ${busyMs.toFixed(0)} ms`).toBeLessThan(BUSY_BOUND_MS);
    } finally {
      await rpc(t.url, "evm_setIntervalMining", [1_000]);
      // The cases after this one start with the pool mined.
      if (last) await publicClient.waitForTransactionReceipt({ hash: last });
    }
  }, 20_000);

  it("the struct logger stops at its entry cap with -32005 naming the limit", async () => {
    const answer = await call("debug_traceCall", [{ to: looper }, "latest", { disableStorage: true }]);
    expect(answer.error?.code).toBe(-32005);
    expect(answer.error?.data).toEqual({ limit: "traceMaxSteps", max: MAX_STEPS });
  }, 20_000);

  it("the struct logger stops at its byte cap with -32005 naming the limit", async () => {
    // Creation code that grows memory to 1 KiB (`PUSH1 0 PUSH2 0x3e0 MSTORE`), then loops: each entry
    // with memory is about 2.3 KB, so the byte cap comes long before the entry cap.
    const answer = await call("debug_traceCall", [
      { data: "0x60006103e0525b600656" },
      "latest",
      { enableMemory: true, disableStorage: true },
    ]);
    expect(answer.error?.code, JSON.stringify(answer).slice(0, 300)).toBe(-32005);
    expect(answer.error?.message).toBe(`trace exceeds ${MAX_BYTES} bytes of struct logs`);
    expect(answer.error?.data).toEqual({ limit: "traceMaxBytes", max: MAX_BYTES });
  }, 20_000);

  it("testing_buildBlockV1 of a block of looping transactions stops at the limit; probes still answer", async () => {
    const { wallet, publicClient } = viemClients(t.url);
    const head = (await rpc(t.url, "eth_getBlockByNumber", ["latest", false])).result as {
      hash: Hex;
      timestamp: Hex;
    };
    const nonce = await publicClient.getTransactionCount({ address: wallet.account.address });
    const raw: Hex[] = [];
    for (let i = 0; i < 2; i++) {
      const request = await wallet.prepareTransactionRequest({
        to: looper,
        gas: 25_000_000n,
        nonce: nonce + i,
      });
      raw.push(await wallet.signTransaction(request));
    }
    const attributes = {
      timestamp: `0x${(BigInt(head.timestamp) + 12n).toString(16)}`,
      prevRandao: `0x${"00".repeat(32)}`,
      suggestedFeeRecipient: `0x${"00".repeat(20)}`,
      withdrawals: [],
      parentBeaconBlockRoot: `0x${"11".repeat(32)}`,
    };
    const { answers, elapsed, slowest } = await underProbe(async () => [
      await call("testing_buildBlockV1", [head.hash, attributes, raw]),
    ]);
    const [answer] = answers;
    // Stopped at the limit, or, when the first loop ran out of its 25M gas in time, refused because
    // the second no longer fits in the block (or the head moved meanwhile); never longer.
    if (answer?.error)
      expect(answer.error.message).toMatch(
        /execution timeout|not current head|higher gas limit than the remaining gas/,
      );
    expect(elapsed).toBeLessThan(LIMIT_MS + 2_000);
    expect(slowest).toBeLessThan(PROBE_BOUND_MS);
  }, 20_000);

  it("all of them at once: the queue refuses what waits beyond 500 ms with -32005; probes still answer", async () => {
    const { answers, slowest, blocks } = await underProbe(() =>
      Promise.all([...Object.values(attacks), ...Object.values(attacks)].map((attack) => attack())),
    );
    const refused = answers.filter((answer) => answer.error?.code === -32005);
    expect(refused.length).toBeGreaterThan(0);
    expect(
      refused.some((a) => (a.error?.data as { limit?: string } | undefined)?.limit === "executionQueue"),
    ).toBe(true);
    expect(slowest).toBeLessThan(PROBE_BOUND_MS);
    expect(blocks).toBeGreaterThan(0n);
  }, 30_000);
});

/**
 * A factory whose every call creates a contract (code `0x01`): its runtime is `PUSH10 <init code>
 * PUSH1 0 MSTORE PUSH1 10 PUSH1 22 PUSH1 0 CREATE STOP`, behind a constructor that returns it.
 */
const FACTORY_CODE = "0x601680600b6000396000f369600160005360016000f3600052600a60166000f000";
/** The heaviest transaction a block holds: the loop at nearly the block's 30M gas. */
const BLOCK_LOOP_GAS = 29_000_000n;

describe("replays of a mined block at its gas limit", () => {
  let block: Hex;
  let blockHash: Hex;
  let loopTx: Hex;
  let child: Address;

  beforeAll(async () => {
    const { wallet, publicClient } = viemClients(t.url);
    const deployed = await wallet.sendTransaction({ data: FACTORY_CODE });
    const factory = (await publicClient.waitForTransactionReceipt({ hash: deployed })).contractAddress!;
    // One block: the loop first, then a call of the factory, whose child ots_getContractCreator finds
    // by replaying the block (the loop included) on a worker.
    await rpc(t.url, "evm_setIntervalMining", [0]);
    try {
      const nonce = await publicClient.getTransactionCount({ address: wallet.account.address });
      loopTx = await wallet.sendTransaction({ to: looper, gas: BLOCK_LOOP_GAS, nonce });
      const created = await wallet.sendTransaction({ to: factory, gas: 200_000n, nonce: nonce + 1 });
      await rpc(t.url, "evm_mine");
      const receipt = await publicClient.waitForTransactionReceipt({ hash: created });
      expect((await publicClient.getTransactionReceipt({ hash: loopTx })).blockNumber).toBe(
        receipt.blockNumber,
      );
      block = `0x${receipt.blockNumber.toString(16)}`;
      blockHash = receipt.blockHash;
      child = getContractAddress({ from: factory, nonce: 1n });
      expect(await publicClient.getCode({ address: child })).toBe("0x01");
    } finally {
      await rpc(t.url, "evm_setIntervalMining", [1_000]);
    }
  }, 60_000);

  const replays: Record<string, () => Promise<RpcAnswer>> = {
    "debug_traceTransaction (callTracer, client timeout 30s)": () =>
      call("debug_traceTransaction", [loopTx, { tracer: "callTracer", timeout: "30s" }]),
    "debug_traceTransaction (struct logger)": () =>
      call("debug_traceTransaction", [loopTx, { timeout: "30s", disableStorage: true }]),
    "debug_traceBlockByNumber (prestateTracer, client timeout 30s)": () =>
      call("debug_traceBlockByNumber", [block, { tracer: "prestateTracer", timeout: "30s" }]),
    "debug_traceBlockByHash (callTracer, client timeout 30s)": () =>
      call("debug_traceBlockByHash", [blockHash, { tracer: "callTracer", timeout: "30s" }]),
    "ots_getContractCreator (a contract created after the loop in its block)": () =>
      call("ots_getContractCreator", [child]),
  };

  for (const [name, replay] of Object.entries(replays)) {
    it(`${name}: stops at the node's limit or finishes, while eth_blockNumber answers and blocks go on`, async () => {
      const { answers, elapsed, slowest, blocks, busyMs } = await underProbe(async () => [await replay()]);
      const [answer] = answers;
      // A replay that outlives the limit is stopped (or the struct logger at its entry cap); one that
      // fits in it answers.
      if (answer?.error) expect(answer.error.message).toMatch(/execution timeout|struct log/);
      else expect(answer?.result, JSON.stringify(answer)).toBeDefined();
      expect(elapsed).toBeLessThan(LIMIT_MS + 2_000);
      expect(slowest, `slowest probe ${slowest.toFixed(0)} ms`).toBeLessThan(PROBE_BOUND_MS);
      expect(busyMs, `node's thread busy ${busyMs.toFixed(0)} ms`).toBeLessThan(BUSY_BOUND_MS);
      expect(blocks).toBeGreaterThan(0n);
    }, 20_000);
  }
});

describe("testing_buildBlockV1 outside dev", () => {
  it("does not exist on a network without dev accounts unless enabled", async () => {
    const mainnet = await startTestNode({ network: "mainnet", mining: { mode: "manual" } });
    try {
      const attributes = {
        timestamp: "0x1",
        prevRandao: `0x${"00".repeat(32)}`,
        suggestedFeeRecipient: `0x${"00".repeat(20)}`,
      };
      const answer = await rpc(mainnet.url, "testing_buildBlockV1", [`0x${"00".repeat(32)}`, attributes]);
      expect(answer.error?.code).toBe(-32601);
    } finally {
      await mainnet.stop();
    }
    const enabled = await startTestNode({
      network: "mainnet",
      mining: { mode: "manual" },
      rpc: { testingMethods: true },
    });
    try {
      const attributes = {
        timestamp: "0x1",
        prevRandao: `0x${"00".repeat(32)}`,
        suggestedFeeRecipient: `0x${"00".repeat(20)}`,
      };
      const answer = await rpc(enabled.url, "testing_buildBlockV1", [`0x${"00".repeat(32)}`, attributes]);
      expect(answer.error?.message).toBe("parentHash is not current head");
    } finally {
      await enabled.stop();
    }
  }, 30_000);
});
