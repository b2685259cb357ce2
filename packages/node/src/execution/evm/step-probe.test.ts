import type { InterpreterStep } from "@ethereumjs/evm";
import { describe, expect, it } from "vitest";
import { opcodeFlags, runCallTo, vmWithCode } from "../../testing/evm-runs.js";
import { type ProbedStep, probeSteps } from "./step-probe.js";

const CALLER = "0x00000000000000000000000000000000000000c0" as const;
const CALLEE = "0x00000000000000000000000000000000000000c1" as const;
// Callee: PUSH1 1, PUSH1 0, SSTORE (cold, from zero), GAS, POP, STOP
const CALLEE_CODE = "0x60016000555a5000" as const;
// Caller: PUSH1 7, PUSH1 0, SSTORE, then CALL(GAS, CALLEE, 0, 0, 0, 0, 0), POP, STOP
const CALLER_CODE = `0x60076000556000600060006000600073${CALLEE.slice(2)}5af15000` as const;
const SSTORE = 0x55;
const GAS = 0x5a;
const CALL = 0xf1;

const vm = () => vmWithCode({ [CALLER]: CALLER_CODE, [CALLEE]: CALLEE_CODE });
const run = (machine: Awaited<ReturnType<typeof vm>>) => runCallTo(machine, CALLER, 200_000n);
const flags = opcodeFlags;

/** What a full step event says of the fields a probe reports. */
function asProbed(step: InterpreterStep): ProbedStep {
  return {
    depth: step.depth,
    pc: step.pc,
    gasLeft: step.gasLeft,
    opcode: {
      code: step.opcode.code,
      name: step.opcode.name,
      fee: step.opcode.fee,
      dynamicFee: step.opcode.dynamicFee!,
    },
    stack: step.stack,
    memory: step.memory,
    address: step.address,
    account: step.account,
  };
}

describe("probeSteps", () => {
  it("hears the selected opcodes of every frame, as the step events tell them, without any step event", async () => {
    const selected = flags(SSTORE, GAS, CALL);
    const events: ProbedStep[] = [];
    const reference = await vm();
    reference.evm.events!.on("step", (step: InterpreterStep) => {
      if (selected[step.opcode.code] === 1) events.push(asProbed(step));
    });
    await run(reference);

    const machine = await vm();
    const heard: ProbedStep[] = [];
    // The memory is a view that holds while the listener runs: kept as a copy.
    const stop = probeSteps(machine.evm, selected, (step) =>
      heard.push({ ...step, memory: step.memory.slice() }),
    );
    const result = await run(machine);
    stop();
    expect(result.execResult.exceptionError).toBeUndefined();
    expect(heard.map((step) => [step.depth, step.opcode.code])).toEqual([
      [0, SSTORE],
      [0, GAS],
      [0, CALL],
      [1, SSTORE],
      [1, GAS],
    ]);
    expect(heard).toEqual(events);
    expect(machine.evm.events!.listenerCount("step")).toBe(0);

    await run(machine);
    expect(heard).toHaveLength(5);
  });

  it("hears steps alongside a step listener, and allows one probe per EVM", async () => {
    const machine = await vm();
    const heard: number[] = [];
    const listened: number[] = [];
    machine.evm.events!.on("step", (step: InterpreterStep) => listened.push(step.opcode.code));
    const stop = probeSteps(machine.evm, flags(CALL), (step) => heard.push(step.opcode.code));
    expect(() => probeSteps(machine.evm, flags(GAS), () => {})).toThrow(/already has a step probe/);
    await run(machine);
    stop();
    expect(heard).toEqual([CALL]);
    expect(listened.filter((code) => code === CALL)).toEqual([CALL]);
    const again = probeSteps(machine.evm, flags(GAS), (step) => heard.push(step.opcode.code));
    await run(machine);
    again();
    expect(heard).toEqual([CALL, GAS, GAS]);
  });
});
