import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { createEVM, type EVM } from "@ethereumjs/evm";
import { describe, expect, it } from "vitest";
import { interpreterPrototype } from "./evm-internals.js";
import { ANALYSED_CODE_BYTES, cacheJumpAnalysis } from "./jump-analyses.js";

interface Analysis {
  readonly jumps: Uint8Array;
  readonly opcodesCached: { readonly opcodeInfo: { readonly name: string } }[];
}

/** The interpreter's (cached) analysis of `code`, as a frame of `evm` would get it. */
async function analyse(evm: EVM, code: Uint8Array): Promise<Analysis> {
  await cacheJumpAnalysis();
  const prototype = (await interpreterPrototype()) as {
    _getValidJumpDestinations(this: unknown, code: Uint8Array): Analysis;
  };
  const frame = {
    _evm: evm,
    common: evm.common,
    lookupOpInfo: (opcode: number) => (evm as unknown as { _opcodeMap: unknown[] })._opcodeMap[opcode],
  };
  return prototype._getValidJumpDestinations.call(frame, code);
}

const evmAt = (hardfork: Hardfork) => createEVM({ common: createCustomCommon({}, Mainnet, { hardfork }) });

describe("jump analyses", () => {
  it("are reused for the same code object and for a new object with the same bytes", async () => {
    const evm = await evmAt(Hardfork.Prague);
    // PUSH1 0x5b (not a destination), JUMPDEST, STOP
    const code = Uint8Array.of(0x60, 0x5b, 0x5b, 0x00);
    const first = await analyse(evm, code);
    expect([...first.jumps]).toEqual([0, 0, 1, 0]);
    expect(await analyse(evm, code)).toBe(first);
    expect(await analyse(evm, Uint8Array.of(0x60, 0x5b, 0x5b, 0x00))).toBe(first);
    // Another EVM under the same rules builds its own opcode table, and shares the analyses.
    expect(await analyse(await evmAt(Hardfork.Prague), Uint8Array.of(0x60, 0x5b, 0x5b, 0x00))).toBe(first);
    const other = await analyse(evm, Uint8Array.of(0x60, 0x5b, 0x5b, 0x01));
    expect(other).not.toBe(first);
  });

  it("are kept per set of rules: an opcode of a later fork is invalid under an earlier one", async () => {
    // TLOAD (Cancun), STOP: one code object, analysed under Cancun first.
    const code = Uint8Array.of(0x5c, 0x00);
    const cancun = await analyse(await evmAt(Hardfork.Cancun), code);
    const london = await analyse(await evmAt(Hardfork.London), code);
    expect(cancun.opcodesCached[0]!.opcodeInfo.name).toBe("TLOAD");
    expect(london.opcodesCached[0]!.opcodeInfo.name).toBe("INVALID");
  });

  it("keep at most ANALYSED_CODE_BYTES of code by content, dropping the least recently used", async () => {
    const evm = await evmAt(Hardfork.Shanghai);
    const size = 32 * 1024;
    const codeNumbered = (n: number) => {
      const code = new Uint8Array(size);
      code.fill(0x5b);
      new DataView(code.buffer).setUint32(0, n);
      new DataView(code.buffer).setUint32(size - 4, n);
      return code;
    };
    const oldest = await analyse(evm, codeNumbered(0));
    const used = await analyse(evm, codeNumbered(1));
    const count = Math.ceil(ANALYSED_CODE_BYTES / size) + 4;
    let newest: Analysis | undefined;
    for (let n = 2; n < count; n++) {
      newest = await analyse(evm, codeNumbered(n));
      // Used all along: never the least recently used.
      expect(await analyse(evm, codeNumbered(1))).toBe(used);
    }
    expect(await analyse(evm, codeNumbered(0))).not.toBe(oldest);
    expect(await analyse(evm, codeNumbered(count - 1))).toBe(newest);
  });
});
