import { createBlock } from "@ethereumjs/block";
import { createAddressFromString } from "@ethereumjs/util";
import { runTx } from "@ethereumjs/vm";
import { describe, expect, it } from "vitest";
import { runCallTo, vmWithCode } from "../../testing/evm-runs.js";
import { callRequestTransaction } from "../call/call-request-tx.js";
import { runWithTracer } from "./evm-hooks.js";
import type { EmittedLog, FrameEnter, FrameExit, Tracer } from "./tracer.js";

const CALLER = "0x00000000000000000000000000000000000000c0" as const;
const CALLEE = "0x00000000000000000000000000000000000000c1" as const;
const HEIR = "0x00000000000000000000000000000000000000c2" as const;
// Callee: MSTORE 0x2a at 0, LOG1 of that word under topic 7, STOP.
const CALLEE_CODE = "0x602a600052600760206000a100" as const;
// Caller: STATICCALL(GAS, CALLEE, 0, 0, 0, 0), CALL(GAS, CALLEE, 0, 0, 0, 0, 0), POP, POP, STOP.
const CALLER_CODE =
  `0x6000600060006000${`73${CALLEE.slice(2)}`}5afa6000600060006000600073${CALLEE.slice(2)}5af1505000` as const;
// Destructs to HEIR.
const DESTRUCT_CODE = `0x73${HEIR.slice(2)}ff` as const;

/** A call tracer's view of a run: frames entered and left, and logs, in order. */
function recorder(): Tracer & { readonly seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    wantsOpcodes: false,
    onEnter: (frame: FrameEnter) => seen.push(`enter ${frame.depth} ${frame.type} ${frame.to?.toString()}`),
    onExit: (frame: FrameExit) => seen.push(`exit ${frame.depth} ${frame.error ?? "ok"}`),
    onLog: (log: EmittedLog) =>
      seen.push(
        `log ${log.address.toString()} ${log.topics.length} ${Buffer.from(log.data).toString("hex")}`,
      ),
    result: () => seen,
  };
}

/** Runs a call to `to` (a creation of `data` when `to` is undefined) under `tracer`, counting the `step` listeners attached meanwhile. */
async function traced(
  code: Record<string, `0x${string}`>,
  to: `0x${string}` | undefined,
  tracer: Tracer,
  data?: `0x${string}`,
) {
  const machine = await vmWithCode(code);
  const events = machine.evm.events!;
  let stepListeners = 0;
  const on = events.on.bind(events);
  events.on = ((event: string, listener: (...args: unknown[]) => void) => {
    if (event === "step") stepListeners++;
    return on(event as "step", listener);
  }) as typeof events.on;
  const tx = callRequestTransaction(to ? { to } : { data: data! }, 200_000n, machine.common, 0n);
  const result = await runWithTracer(
    machine,
    tracer,
    {
      tx,
      sender: createAddressFromString("0x0000000000000000000000000000000000000000"),
      coinbase: createAddressFromString("0x0000000000000000000000000000000000000000"),
      logIndexBase: 0,
      deadline: Number.POSITIVE_INFINITY,
    },
    () =>
      to
        ? runCallTo(machine, to, 200_000n)
        : runTx(machine, {
            tx,
            block: createBlock(
              { header: { gasLimit: 30_000_000n, baseFeePerGas: 0n } },
              { common: machine.common },
            ),
            skipNonce: true,
            skipBalance: true,
          }),
  );
  return { result, stepListeners };
}

describe("frame hooks of a tracer without opcode output", () => {
  it("hear calls, logs and returns from a step probe, with no step event", async () => {
    const tracer = recorder();
    const { result, stepListeners } = await traced(
      { [CALLER]: CALLER_CODE, [CALLEE]: CALLEE_CODE },
      CALLER,
      tracer,
    );
    expect(result.execResult.exceptionError).toBeUndefined();
    const word = "2a".padStart(64, "0");
    expect(tracer.seen).toEqual([
      `enter 0 CALL ${CALLER}`,
      // A static frame's LOG fails: the frame reports the error and keeps no log.
      `enter 1 STATICCALL ${CALLEE}`,
      "exit 1 write protection",
      `enter 1 CALL ${CALLEE}`,
      `log ${CALLEE} 1 ${word}`,
      "exit 1 ok",
      "exit 0 ok",
    ]);
    expect(stepListeners).toBe(0);
  });

  it("hear SELFDESTRUCT from a step event, which reads the balance from the state", async () => {
    const tracer = recorder();
    const { stepListeners } = await traced({ [CALLER]: DESTRUCT_CODE }, CALLER, tracer);
    expect(tracer.seen).toEqual([
      `enter 0 CALL ${CALLER}`,
      `enter 1 SELFDESTRUCT ${HEIR}`,
      "exit 1 ok",
      "exit 0 ok",
    ]);
    expect(stepListeners).toBe(1);
  });

  it("report init code whose RETURN cannot pay for its memory as out of gas, as geth", async () => {
    // RETURN of 16 MiB from offset 0: the memory expansion alone costs far more than the gas given.
    const tracer = recorder();
    await traced({}, undefined, tracer, "0x62ffffff6000f3");
    expect(tracer.seen.at(-1)).toBe("exit 0 out of gas");
  });
});
