import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createBlock } from "@ethereumjs/block";
import { Common, createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { createEVM, type InterpreterStep, type Message } from "@ethereumjs/evm";
import { MerkleStateManager } from "@ethereumjs/statemanager";
import {
  Account,
  bigIntToBytes,
  bigIntToUnpaddedBytes,
  bytesToBigInt,
  createAddressFromString,
  hexToBytes,
  setLengthLeft,
  toBytes,
} from "@ethereumjs/util";
import { createVM, runTx } from "@ethereumjs/vm";
import { getContractAddress, keccak256 } from "viem";
import { describe, expect, it } from "vitest";
import { callRequestTransaction } from "../call/call-request-tx.js";
import { interpreterPrototype, type RunStep } from "./evm-internals.js";

const ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));
const PATCHES = join(ROOT, "patches");

/** Each hunk of a unified diff as the text its file holds once patched (context and added lines). */
function patchedHunks(patch: string): { file: string; text: string }[] {
  const hunks: { file: string; text: string }[] = [];
  let file = "";
  let lines: string[] | undefined;
  const flush = () => {
    if (lines) hunks.push({ file, text: lines.join("\n") });
    lines = undefined;
  };
  for (const line of patch.split("\n")) {
    if (line.startsWith("+++ b/")) {
      flush();
      file = line.slice(6);
    } else if (line.startsWith("@@")) {
      flush();
      lines = [];
    } else if (lines && (line.startsWith(" ") || line.startsWith("+"))) {
      lines.push(line.slice(1));
    } else if (line.startsWith("diff ")) {
      flush();
    }
  }
  flush();
  return hunks;
}

const common = createCustomCommon({}, Mainnet, { hardfork: Hardfork.Prague });
const CALLEE = createAddressFromString("0x00000000000000000000000000000000000000c0");
const CALLER = createAddressFromString("0x00000000000000000000000000000000000000ca");

/** An EVM whose CALLEE holds `code`, under `rules` (by default without the node's hashing). */
async function evmWith(code: string, rules: Common = common) {
  const stateManager = new MerkleStateManager({ common });
  await stateManager.putAccount(CALLEE, new Account());
  await stateManager.putCode(CALLEE, hexToBytes(code as `0x${string}`));
  await stateManager.putAccount(CALLER, new Account(0n, 10n ** 18n));
  return createEVM({ common: rules, stateManager });
}

describe("patched @ethereumjs internals", () => {
  it("are installed: every hunk of patches/ is in the installed file", () => {
    const patches = readdirSync(PATCHES).filter((name) => name.endsWith(".patch"));
    expect(patches.length).toBeGreaterThan(0);
    for (const name of patches) {
      const hunks = patchedHunks(readFileSync(join(PATCHES, name), "utf8"));
      expect(hunks.length, name).toBeGreaterThan(0);
      for (const { file, text } of hunks) {
        expect(readFileSync(join(ROOT, file), "utf8"), `${name}: ${file}`).toContain(text);
      }
    }
  });

  it("run a call frame on its message and give the frame's result without a run-state copy", async () => {
    // GAS PUSH0 MSTORE, LOG0 of that word, RETURN it: the frame's gas left after GAS (2 gas).
    const evm = await evmWith("0x5a5f5260205fa060205ff3");
    const messages: Message[] = [];
    evm.events?.on("beforeMessage", (message: Message) => messages.push(message));
    const { execResult } = await evm.runCall({ caller: CALLER, to: CALLEE, gasLimit: 100_000n });
    expect(execResult.exceptionError).toBeUndefined();
    expect(execResult.runState).toBeUndefined();
    expect(BigInt(`0x${Buffer.from(execResult.returnValue).toString("hex")}`)).toBe(100_000n - 2n);
    expect(execResult.logs).toHaveLength(1);
    expect(execResult.executionGasUsed).toBe(100_000n - (execResult.gas ?? 0n));
    expect(messages.map((message) => message.gasLimit)).toEqual([100_000n]);
  });

  it("give CREATE2's address (EIP-1014), hashing with the Common's keccak when it has one", async () => {
    // CREATE2 of the one-byte init code 0x00 (memory starts zeroed) with salt 0x2a; return the address.
    const code = "0x602a60015f5ff55f5260205ff3";
    const expected = getContractAddress({
      opcode: "CREATE2",
      from: CALLEE.toString(),
      salt: setLengthLeft(Uint8Array.of(0x2a), 32),
      bytecode: "0x00",
    }).toLowerCase();
    const created = async (rules: Common) => {
      const evm = await evmWith(code, rules);
      const { execResult } = await evm.runCall({ caller: CALLER, to: CALLEE, gasLimit: 200_000n });
      expect(execResult.exceptionError).toBeUndefined();
      return `0x${Buffer.from(execResult.returnValue.subarray(12)).toString("hex")}`;
    };
    const hashed: Uint8Array[] = [];
    const hashing = createCustomCommon({}, Mainnet, {
      hardfork: Hardfork.Prague,
      customCrypto: {
        keccak256: (data: Uint8Array) => {
          hashed.push(data);
          return keccak256(data, "bytes");
        },
      },
    });
    expect(await created(common)).toBe(expected);
    expect(await created(hashing)).toBe(expected);
    // The init code itself went through the Common's keccak.
    expect(hashed.some((data) => data.length === 1 && data[0] === 0)).toBe(true);
  });

  it("drop a reverted frame's logs and keep its return data", async () => {
    // LOG0 of nothing, then REVERT with the word 0x2a.
    const evm = await evmWith("0x5f5fa0602a5f5260205ffd");
    const { execResult } = await evm.runCall({
      caller: CALLER,
      to: CALLEE,
      gasLimit: 50_000n,
    });
    expect(execResult.exceptionError?.error).toBe("revert");
    expect(execResult.logs).toEqual([]);
    expect(execResult.returnValue).toEqual(setLengthLeft(Uint8Array.of(0x2a), 32));
  });

  it("run steps that wait for nothing synchronously, with the outcome a `step` listener sees", async () => {
    // Ten rounds of: count down in memory, SSTORE the count; then KECCAK256 of the word, plus
    // SLOAD(5), MSTORE, LOG0 and RETURN it. Only the eleven SSTOREs and SLOAD wait for state.
    const code = "0x600a5f525b5f5160019003805f52808055600457" + "60205f2060055401" + "5f5260205fa060205ff3";
    const prototype = (await interpreterPrototype()) as { runStep: RunStep<unknown> };
    const original = prototype.runStep;
    const run = async (listen: boolean) => {
      const evm = await evmWith(code);
      const steps: string[] = [];
      if (listen) evm.events?.on("step", (step: InterpreterStep) => steps.push(step.opcode.name));
      let promises = 0;
      let plain = 0;
      prototype.runStep = function (this: unknown, opcode: unknown) {
        // A step that ends the frame (RETURN) throws, synchronously when it runs synchronously.
        let stepping: Promise<void> | undefined;
        try {
          stepping = original.call(this, opcode);
        } finally {
          if (stepping) promises++;
          else plain++;
        }
        return stepping;
      };
      try {
        const { execResult } = await evm.runCall({ caller: CALLER, to: CALLEE, gasLimit: 1_000_000n });
        const stored = await evm.stateManager.getStorage(CALLEE, setLengthLeft(Uint8Array.of(5), 32));
        return { execResult, stored, promises, plain, steps };
      } finally {
        prototype.runStep = original;
      }
    };
    const fast = await run(false);
    const listened = await run(true);
    expect(fast.execResult.exceptionError).toBeUndefined();
    expect(fast.promises).toBe(11);
    expect(fast.plain).toBeGreaterThan(100);
    expect(listened.plain).toBe(0);
    expect(listened.promises).toBe(fast.promises + fast.plain);
    expect(listened.steps).toHaveLength(listened.promises);
    expect(fast.execResult.executionGasUsed).toBe(listened.execResult.executionGasUsed);
    expect(fast.execResult.returnValue).toEqual(listened.execResult.returnValue);
    expect(fast.execResult.logs).toEqual(listened.execResult.logs);
    expect(fast.stored).toEqual(Uint8Array.of(5));
  });

  it("fail a step without listeners as with them: out of gas in a dynamic charge, an invalid opcode", async () => {
    for (const [code, error] of [
      ["0x6201000051", "out of gas"],
      ["0x6001fe", "invalid opcode"],
    ] as const) {
      const outcomes = [];
      for (const listen of [false, true]) {
        const evm = await evmWith(code);
        if (listen) evm.events?.on("step", () => {});
        const { execResult } = await evm.runCall({ caller: CALLER, to: CALLEE, gasLimit: 1_000n });
        outcomes.push({ error: execResult.exceptionError?.error, gas: execResult.executionGasUsed });
      }
      expect(outcomes[0]?.error, code).toBe(error);
      expect(outcomes[0], code).toEqual(outcomes[1]);
    }
  });

  it("pad bytes into a fresh array of the target length", () => {
    const input = Uint8Array.of(1, 2, 3);
    const padded = setLengthLeft(input, 8);
    expect([...padded]).toEqual([0, 0, 0, 0, 0, 1, 2, 3]);
    expect(padded.buffer).not.toBe(input.buffer);
    expect(setLengthLeft(input, 3)).toBe(input);
  });

  it("convert between integers and bytes as the hex-string path does, on both sides of 2^53", () => {
    const hexBytes = (value: bigint) =>
      Buffer.from(
        value.toString(16).padStart(value.toString(16).length + (value.toString(16).length % 2), "0"),
        "hex",
      );
    const values = [
      0n,
      1n,
      127n,
      128n,
      255n,
      256n,
      65_535n,
      65_536n,
      21_000n,
      10n ** 9n,
      2n ** 48n - 1n,
      2n ** 48n,
    ];
    values.push(
      2n ** 53n - 1n,
      2n ** 53n,
      2n ** 53n + 1n,
      10n ** 18n,
      2n ** 64n - 1n,
      2n ** 255n + 12_345n,
      2n ** 256n - 1n,
    );
    for (const value of values) {
      const expected = [...hexBytes(value)];
      expect([...bigIntToBytes(value)], `${value}`).toEqual(expected);
      expect([...bigIntToBytes(value, true)], `${value} little-endian`).toEqual([...expected].reverse());
      expect([...bigIntToUnpaddedBytes(value)], `${value} unpadded`).toEqual(value === 0n ? [] : expected);
      expect(bytesToBigInt(Uint8Array.from(expected)), `${value} back`).toBe(value);
      expect(bytesToBigInt(Uint8Array.from([0, 0, ...expected])), `${value} with leading zeros`).toBe(value);
      expect(bytesToBigInt(Uint8Array.from(expected).reverse(), true), `${value} little-endian back`).toBe(
        value,
      );
    }
    expect(bytesToBigInt(new Uint8Array())).toBe(0n);
    expect(() => bigIntToBytes(-1n)).toThrow();
  });

  it("read bytes of any width as a big-endian integer, and write wide integers back, as the hex path does", () => {
    // A fixed pseudo-random sequence: every width from 0 to 70 bytes, with all-zero and all-0xff words.
    let seed = 0x2545f491;
    const nextByte = () => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return seed >>> 24;
    };
    for (let width = 0; width <= 70; width++) {
      for (const fill of ["random", "zero", "max"] as const) {
        const bytes = Uint8Array.from({ length: width }, () =>
          fill === "random" ? nextByte() : fill === "zero" ? 0 : 0xff,
        );
        const hex = Buffer.from(bytes).toString("hex");
        const value = width === 0 ? 0n : BigInt(`0x${hex}`);
        expect(bytesToBigInt(bytes), `${width} bytes ${fill}`).toBe(value);
        const minimal = hex.replace(/^(00)+/, "");
        expect(Buffer.from(bigIntToBytes(value)).toString("hex"), `${width} bytes ${fill} back`).toBe(
          minimal === "" ? "00" : minimal,
        );
      }
    }
    expect(() => bigIntToBytes(-(2n ** 80n))).toThrow();
  });

  it("copy bytes into a new plain Uint8Array, from a Buffer too", () => {
    const buffer = Buffer.from([1, 2, 3]);
    const copy = toBytes(buffer);
    expect(Object.getPrototypeOf(copy)).toBe(Uint8Array.prototype);
    expect([...copy]).toEqual([1, 2, 3]);
    buffer[0] = 9;
    expect(copy[0]).toBe(1);
    expect([...toBytes([4, 5])]).toEqual([4, 5]);
  });

  it("run a transaction without its receipt and logs bloom when asked to, with the same outcome", async () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
    const block = createBlock({ header: { gasLimit: 30_000_000n, baseFeePerGas: 0n } }, { common });
    // PUSH1 7, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, LOG0, PUSH1 1, PUSH1 0, SSTORE, STOP
    const contract = createAddressFromString("0x00000000000000000000000000000000000000c0");
    const outcome = async (skipReceipt: boolean) => {
      const vm = await createVM({ common: common.copy() });
      await vm.stateManager.putCode(contract, hexToBytes("0x600760005260206000a0600160005500"));
      const tx = callRequestTransaction(
        { to: contract.toString() as `0x${string}` },
        100_000n,
        vm.common,
        0n,
      );
      const opts = { tx, block, skipNonce: true, skipBalance: true, skipReceipt };
      return runTx(vm, opts);
    };
    const full = await outcome(false);
    const bare = await outcome(true);
    expect(full.receipt.logs).toHaveLength(1);
    expect(full.bloom).toBeDefined();
    expect(bare.receipt).toBeUndefined();
    expect(bare.bloom).toBeUndefined();
    expect(bare.totalGasSpent).toBe(full.totalGasSpent);
    expect(bare.execResult.logs).toEqual(full.execResult.logs);
  });
});
