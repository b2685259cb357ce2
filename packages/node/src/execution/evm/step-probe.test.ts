import { createBlock } from "@ethereumjs/block";
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import type { InterpreterStep } from "@ethereumjs/evm";
import { createAddressFromString, hexToBytes } from "@ethereumjs/util";
import { createVM, runTx } from "@ethereumjs/vm";
import { describe, expect, it } from "vitest";
import { callRequestTransaction } from "../call/call-request-tx.js";
import { type ProbedStep, probeSteps } from "./step-probe.js";

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
const block = createBlock({ header: { gasLimit: 30_000_000n, baseFeePerGas: 0n } }, { common });
const CALLER = "0x00000000000000000000000000000000000000c0";
const CALLEE = "0x00000000000000000000000000000000000000c1";
// Callee: PUSH1 1, PUSH1 0, SSTORE (cold, from zero), GAS, POP, STOP
const CALLEE_CODE = "0x60016000555a5000";
// Caller: PUSH1 7, PUSH1 0, SSTORE, then CALL(GAS, CALLEE, 0, 0, 0, 0, 0), POP, STOP
const CALLER_CODE = `0x60076000556000600060006000600073${CALLEE.slice(2)}5af15000` as const;
const SSTORE = 0x55;
const GAS = 0x5a;
const CALL = 0xf1;

async function vm() {
  const machine = await createVM({ common: common.copy() });
  await machine.stateManager.putCode(createAddressFromString(CALLER), hexToBytes(CALLER_CODE));
  await machine.stateManager.putCode(createAddressFromString(CALLEE), hexToBytes(CALLEE_CODE));
  return machine;
}

function run(machine: Awaited<ReturnType<typeof vm>>) {
  const tx = callRequestTransaction({ to: CALLER }, 200_000n, machine.common, 0n);
  return runTx(machine, { tx, block, skipNonce: true, skipBalance: true });
}

function flags(...opcodes: number[]): Uint8Array {
  const selected = new Uint8Array(256);
  for (const opcode of opcodes) selected[opcode] = 1;
  return selected;
}

/** What a full step event says of the fields a probe reports. */
function asProbed(step: InterpreterStep): ProbedStep {
  return {
    depth: step.depth,
    pc: step.pc,
    gasLeft: step.gasLeft,
    opcode: { code: step.opcode.code, fee: step.opcode.fee, dynamicFee: step.opcode.dynamicFee! },
    stack: step.stack,
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
    const stop = probeSteps(machine.evm, selected, (step) => heard.push(step));
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
