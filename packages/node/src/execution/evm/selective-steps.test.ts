import { createBlock } from "@ethereumjs/block";
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import type { InterpreterStep } from "@ethereumjs/evm";
import { createAddressFromString, hexToBytes } from "@ethereumjs/util";
import { createVM, runTx } from "@ethereumjs/vm";
import { describe, expect, it } from "vitest";
import { callRequestTransaction } from "../call/call-request-tx.js";
import { selectSteps } from "./selective-steps.js";

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
const block = createBlock({ header: { gasLimit: 30_000_000n, baseFeePerGas: 0n } }, { common });
const CONTRACT = "0x00000000000000000000000000000000000000c0";
// PUSH1 7, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, LOG0, PUSH1 1, PUSH1 0, SSTORE, STOP
const CODE = "0x600760005260206000a0600160005500";
const LOG0 = 0xa0;
const SSTORE = 0x55;

async function vm() {
  const machine = await createVM({ common: common.copy() });
  await machine.stateManager.putCode(createAddressFromString(CONTRACT), hexToBytes(CODE));
  return machine;
}

function run(machine: Awaited<ReturnType<typeof vm>>) {
  const tx = callRequestTransaction({ to: CONTRACT }, 100_000n, machine.common, 0n);
  return runTx(machine, { tx, block, skipNonce: true, skipBalance: true });
}

function flags(...opcodes: number[]): Uint8Array {
  const selected = new Uint8Array(256);
  for (const opcode of opcodes) selected[opcode] = 1;
  return selected;
}

describe("selectSteps", () => {
  it("reports the selected opcodes alone, each with the full step event, until it is stopped", async () => {
    const machine = await vm();
    const heard: InterpreterStep[] = [];
    const stop = await selectSteps(machine.evm, flags(LOG0, SSTORE), (step) => {
      heard.push(step);
    });
    await run(machine);
    expect(heard.map((step) => step.opcode.name)).toEqual(["LOG0", "SSTORE"]);
    expect(heard[0]!.stack).toEqual([32n, 0n]);
    expect(heard[0]!.memory.subarray(0, 32)).toEqual(hexToBytes(`0x${"07".padStart(64, "0")}`));
    expect(heard[1]!.gasLeft).toBeGreaterThan(heard[1]!.opcode.dynamicFee!);
    expect(machine.evm.events!.listenerCount("step")).toBe(0);

    stop();
    await run(machine);
    expect(heard).toHaveLength(2);
  });

  it("waits for a listener that takes the EVM's resolve callback", async () => {
    const machine = await vm();
    const order: string[] = [];
    const stop = await selectSteps(machine.evm, flags(LOG0), (step, resolve) => {
      setTimeout(() => {
        order.push(`heard ${step.opcode.name}`);
        resolve?.();
      }, 5);
    });
    machine.evm.events!.on("afterMessage", () => order.push("message ended"));
    await run(machine);
    stop();
    expect(order).toEqual(["heard LOG0", "message ended"]);
  });

  it("leaves other EVMs' steps alone", async () => {
    const watched = await vm();
    const other = await vm();
    const heard: string[] = [];
    const stop = await selectSteps(watched.evm, flags(SSTORE), (step) => {
      heard.push(step.opcode.name);
    });
    await run(other);
    stop();
    expect(heard).toEqual([]);
  });

  it("keeps each EVM's own selection while their runs interleave, and forgets a stopped one", async () => {
    const first = await vm();
    const second = await vm();
    const heard: string[] = [];
    const stopFirst = await selectSteps(first.evm, flags(LOG0), (step) => {
      heard.push(`first ${step.opcode.name}`);
    });
    const stopSecond = await selectSteps(second.evm, flags(SSTORE), (step) => {
      heard.push(`second ${step.opcode.name}`);
    });
    await Promise.all([run(first), run(second), run(first)]);
    expect(heard.sort()).toEqual(["first LOG0", "first LOG0", "second SSTORE"]);

    heard.length = 0;
    stopFirst();
    await Promise.all([run(first), run(second)]);
    expect(heard).toEqual(["second SSTORE"]);

    heard.length = 0;
    const stopAgain = await selectSteps(first.evm, flags(SSTORE), (step) => {
      heard.push(`first again ${step.opcode.name}`);
    });
    await run(first);
    await run(second);
    stopAgain();
    stopSecond();
    await Promise.all([run(first), run(second)]);
    expect(heard).toEqual(["first again SSTORE", "second SSTORE"]);
  });
});
