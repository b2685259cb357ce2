import { createAddressFromString } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { OutputLimitError } from "../../errors/domain-errors.js";
import { StructLogger } from "./struct-logger.js";
import { traceTimeoutMs } from "./trace-options.js";
import type { OpcodeStep } from "./tracer.js";

const address = createAddressFromString("0x00000000000000000000000000000000000000aa");

function step(stackDepth: number): OpcodeStep {
  return {
    pc: 0,
    op: "JUMPDEST",
    opcode: 0x5b,
    gas: 1_000_000n,
    cost: 1n,
    depth: 1,
    stack: Array.from({ length: stackDepth }, (_, i) => BigInt(i)),
    memory: new Uint8Array(),
    address,
    refund: 0n,
    returnData: new Uint8Array(),
    state: undefined as never,
  };
}

describe("trace limits", () => {
  it("caps a client's timeout at the node's maximum, and keeps geth's 5 s default below it", () => {
    expect(traceTimeoutMs({ timeout: "30s" }, 5_000)).toBe(5_000);
    expect(traceTimeoutMs({ timeout: "300ms" }, 5_000)).toBe(300);
    expect(traceTimeoutMs({}, 60_000)).toBe(5_000);
    expect(traceTimeoutMs({ timeout: "1m" }, 60_000)).toBe(60_000);
  });

  it("stops the struct logger at its entry cap with an error naming the limit", async () => {
    const logger = new StructLogger({}, { maxSteps: 3, maxBytes: Number.POSITIVE_INFINITY });
    for (let i = 0; i < 3; i++) await logger.onOpcode(step(1));
    const error = await logger.onOpcode(step(1)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputLimitError);
    expect(error).toMatchObject({ limit: "traceMaxSteps", max: 3 });
  });

  it("stops the struct logger once its entries pass the byte cap", async () => {
    const logger = new StructLogger({}, { maxSteps: Number.POSITIVE_INFINITY, maxBytes: 1_000 });
    let error: unknown;
    for (let i = 0; i < 100 && !error; i++) error = await logger.onOpcode(step(16)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputLimitError);
    expect(error).toMatchObject({ limit: "traceMaxBytes", max: 1_000 });
    // The stack is left out with disableStack: the same entries fit many more times.
    const lean = new StructLogger(
      { disableStack: true },
      { maxSteps: Number.POSITIVE_INFINITY, maxBytes: 1_000 },
    );
    for (let i = 0; i < 10; i++) await lean.onOpcode(step(16));
  });
});
