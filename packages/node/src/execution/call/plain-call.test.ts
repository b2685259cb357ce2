import { createBlock } from "@ethereumjs/block";
import type { ExecResult } from "@ethereumjs/evm";
import { bytesToHex, KECCAK256_NULL_S } from "@ethereumjs/util";
import { createVM, runTx, type VM } from "@ethereumjs/vm";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { TestToken } from "@strata/contracts";
import { CallRequest } from "@strata/protocol";
import { type Address, encodeFunctionData, type Hex, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccount, viemClients } from "../../e2e/clients.js";
import { startTestNode, type TestNode } from "../../testing/test-node.js";
import { OverlayStateManager } from "../state/overlay-state.js";
import { callRequestTransaction } from "./call-request-tx.js";
import { runPlainCall } from "./plain-call.js";

/**
 * Runtime code that returns what a call's code can observe of how it was started, one word each:
 * gas at entry; the gas of BALANCE(ORIGIN), of BALANCE(COINBASE) and of BALANCE(0x01) (warm or cold);
 * EXTCODEHASH(ORIGIN) (non-zero once the sender's nonce went up); TLOAD(0) before it TSTOREs 1 there;
 * GASPRICE; BASEFEE.
 */
const PROBE = [
  "5a600052", // GAS -> word 0
  "5a3231505a90036020" + "52", // gas of BALANCE(ORIGIN) -> word 1
  "5a4131505a90036040" + "52", // gas of BALANCE(COINBASE) -> word 2
  "323f606052", // EXTCODEHASH(ORIGIN) -> word 3
  "5f5c608052" + "60015f5d", // TLOAD(0) -> word 4, then TSTORE(0, 1)
  "3a60a052", // GASPRICE -> word 5
  "4860c052", // BASEFEE -> word 6
  "5a600131505a900360e0" + "52", // gas of BALANCE(0x01) -> word 7
  "6101005ff3", // RETURN(0, 256)
].join("");
/** Creation code: copy the runtime after these 10 bytes into memory and return it. */
const PROBE_INIT = `0x61${(PROBE.length / 2).toString(16).padStart(4, "0")}80600a5f395ff3${PROBE}` as Hex;

let t: TestNode;
let vm: VM;
let overlay: OverlayStateManager;
let probe: Address;
let token: Address;

beforeAll(async () => {
  t = await startTestNode();
  const { wallet, publicClient } = viemClients(t.url);
  const probeHash = await wallet.sendTransaction({ data: PROBE_INIT });
  probe = (await publicClient.waitForTransactionReceipt({ hash: probeHash })).contractAddress!;
  const tokenHash = await wallet.deployContract({
    abi: TestToken.abi,
    bytecode: TestToken.bytecode,
    args: ["P", "P", parseEther("5")],
  });
  token = (await publicClient.waitForTransactionReceipt({ hash: tokenHash })).contractAddress!;
  const head = t.node.chain.head;
  overlay = new OverlayStateManager(t.node.chain.stateAt(head), keccak_256);
  vm = await createVM({ common: head.common, stateManager: overlay });
});
afterAll(() => t?.stop());

/** The head as a call's context: no base fee, as for a call that names no fee. */
function context() {
  const head = t.node.chain.head;
  return createBlock(
    { header: { ...head.header.toJSON(), baseFeePerGas: 0n } },
    { common: head.common, setHardfork: false, skipConsensusFormatValidation: true },
  );
}

/** The same call run as a plain message and through runTx, each on a fresh overlay. */
async function both(raw: Record<string, unknown>, gas = 1_000_000n) {
  const request = CallRequest.parse(raw);
  const block = context();
  overlay.reset();
  const plain = await runPlainCall(vm, request, block, gas);
  overlay.reset();
  const tx = callRequestTransaction(request, gas, vm.common, 0n);
  const full = await runTx(vm, {
    tx,
    block,
    skipNonce: true,
    skipBlockGasLimitValidation: true,
    skipHardForkValidation: true,
  }).then(
    (result) => result.execResult,
    (error: Error) => error,
  );
  overlay.reset();
  return { plain, full };
}

function expectSame(plain: ExecResult | undefined, full: ExecResult | Error): ExecResult {
  expect(plain).toBeDefined();
  expect(full).not.toBeInstanceOf(Error);
  const reference = full as ExecResult;
  expect(bytesToHex(plain!.returnValue)).toBe(bytesToHex(reference.returnValue));
  expect(plain!.exceptionError?.error).toBe(reference.exceptionError?.error);
  expect(plain!.executionGasUsed).toBe(reference.executionGasUsed);
  return plain!;
}

function word(result: ExecResult, index: number): bigint {
  return BigInt(bytesToHex(result.returnValue.subarray(index * 32, index * 32 + 32)));
}

describe("plain calls straight through the EVM", () => {
  it("show the called code what runTx shows it: gas, warm accounts, the sender's nonce, prices", async () => {
    const senders = [undefined, "0x000000000000000000000000000000000000beef", devAccount(0).address];
    for (const from of senders) {
      for (const gas of [60_000n, 1_000_000n, 30_000_000n]) {
        const { plain, full } = await both({ to: probe, ...(from ? { from } : {}) }, gas);
        const result = expectSame(plain, full);
        // Intrinsic gas came off: 21,000 plus calldata (none here), minus the first GAS's own 2.
        expect(word(result, 0)).toBe(gas - 21_000n - 2n);
        // The sender, coinbase and precompiles are warm: BALANCE costs 100, plus ORIGIN or COINBASE
        // (2) and POP (2) around it; the precompile's address is pushed (3).
        expect(word(result, 1)).toBe(106n);
        expect(word(result, 2)).toBe(106n);
        expect(word(result, 7)).toBe(107n);
        // The sender's nonce went up, so even an untouched sender is an existing account.
        expect(bytesToHex(result.returnValue.subarray(96, 128))).toBe(KECCAK256_NULL_S);
        expect(word(result, 5)).toBe(0n);
        expect(word(result, 6)).toBe(0n);
      }
    }
  });

  it("starts every call with empty transient storage", async () => {
    const first = await both({ to: probe });
    const second = await both({ to: probe });
    expect(word(expectSame(first.plain, first.full), 4)).toBe(0n);
    expect(word(expectSame(second.plain, second.full), 4)).toBe(0n);
  });

  it("returns, reverts and runs out of gas as runTx does, calldata cost included", async () => {
    const holder = devAccount(0).address;
    const calls = [
      {
        to: token,
        data: encodeFunctionData({ abi: TestToken.abi, functionName: "balanceOf", args: [holder] }),
      },
      { to: token, data: encodeFunctionData({ abi: TestToken.abi, functionName: "fail", args: ["nope"] }) },
      { to: token, data: encodeFunctionData({ abi: TestToken.abi, functionName: "boom" }) },
      { to: "0x0000000000000000000000000000000000000002", data: "0x00ff00ff" },
      { to: "0x000000000000000000000000000000000000dead", data: "0x" },
    ];
    for (const call of calls) {
      const { plain, full } = await both(call);
      expectSame(plain, full);
    }
    const balance = expectSame(...(Object.values(await both(calls[0]!)) as [ExecResult, ExecResult]));
    expect(BigInt(bytesToHex(balance.returnValue))).toBe(parseEther("5"));
    const reverted = expectSame(...(Object.values(await both(calls[1]!)) as [ExecResult, ExecResult]));
    expect(reverted.exceptionError?.error).toBe("revert");
    // Above the calldata floor (22,080 for these 36 bytes), below what a cold storage read needs.
    const starved = await both(calls[0]!, 22_500n);
    expect(expectSame(starved.plain, starved.full).exceptionError?.error).toBe("out of gas");
  });

  it("leaves to runTx what it does not cover, or what runTx refuses", async () => {
    const data = encodeFunctionData({ abi: TestToken.abi, functionName: "totalSupply" });
    const belowIntrinsic = await both({ to: token, data }, 21_010n);
    expect(belowIntrinsic.plain).toBeUndefined();
    expect(belowIntrinsic.full).toBeInstanceOf(Error);
    const fromContract = await both({ to: probe, from: token });
    expect(fromContract.plain).toBeUndefined();
    expect(fromContract.full).toBeInstanceOf(Error);
    for (const other of [
      { to: probe, value: "0x1", from: devAccount(0).address },
      { to: probe, gasPrice: "0x1", from: devAccount(0).address },
      { to: probe, maxFeePerGas: "0x1", from: devAccount(0).address },
      { to: probe, accessList: [{ address: token, storageKeys: [] }] },
      { data: PROBE_INIT },
    ]) {
      overlay.reset();
      expect(await runPlainCall(vm, CallRequest.parse(other), context(), 1_000_000n)).toBeUndefined();
    }
  });
});
