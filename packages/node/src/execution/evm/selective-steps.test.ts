import type { InterpreterStep } from "@ethereumjs/evm";
import { hexToBytes } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { opcodeFlags, runCallTo, vmWithCode } from "../../testing/evm-runs.js";
import { selectSteps } from "./selective-steps.js";

const CONTRACT = "0x00000000000000000000000000000000000000c0" as const;
// PUSH1 7, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, LOG0, PUSH1 1, PUSH1 0, SSTORE, STOP
const CODE = "0x600760005260206000a0600160005500" as const;
const LOG0 = 0xa0;
const SSTORE = 0x55;

const vm = () => vmWithCode({ [CONTRACT]: CODE });
const run = (machine: Awaited<ReturnType<typeof vm>>) => runCallTo(machine, CONTRACT, 100_000n);
const flags = opcodeFlags;

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
