import type { Common } from "@ethereumjs/common";
import { interpreterPrototype } from "./evm-internals.js";

/** What @ethereumjs/evm's interpreter works out of a code before running it. */
interface JumpAnalysis {
  readonly jumps: Uint8Array;
  readonly pushes: Record<number, bigint>;
  readonly opcodesCached: unknown[];
}

/** An opcode table entry as the interpreter's analysis copies it into `opcodesCached`. */
interface OpcodeEntry {
  readonly opcodeInfo: {
    readonly code: number;
    readonly name: string;
    readonly fee: number;
    readonly dynamicGas: boolean;
    readonly isAsync: boolean;
  };
  readonly opHandler: object;
  readonly gasHandler?: object;
}

/** The interpreter as the analysis sees it: its EVM's opcode table and rules. */
interface AnalysingInterpreter {
  readonly _evm: { readonly _opcodeMap: readonly (OpcodeEntry | undefined)[]; readonly common: Common };
}

interface InterpreterPrototype {
  _getValidJumpDestinations(this: AnalysingInterpreter, code: Uint8Array): JumpAnalysis;
}

/**
 * Code bytes (contracts and init codes) whose analyses one set of rules keeps by content, at most:
 * the least recently used are dropped first. Code is at most 48 KiB (EIP-3860 init code), so this
 * keeps at least twenty, typically some sixty; a dApp's test run uses a few dozen. An analysis takes
 * about ten times its code's bytes (an opcode entry per byte, a bigint per push).
 */
export const ANALYSED_CODE_BYTES = 1024 * 1024;

/** Bytes of each end of a code that, with its length, name its place among those kept by content. */
const FINGERPRINT_BYTES = 32;

/** The analyses of one set of rules: by code object, and by content for a new object of known code. */
class RulesAnalyses {
  private readonly byObject = new WeakMap<Uint8Array, JumpAnalysis>();
  private readonly byContent = new Map<string, { readonly code: Buffer; readonly analysis: JumpAnalysis }>();
  private bytes = 0;

  /** `code`'s analysis: kept, or made by `analyse` called on `frame` (and kept). */
  analysisOf(
    code: Uint8Array,
    frame: AnalysingInterpreter,
    analyse: InterpreterPrototype["_getValidJumpDestinations"],
  ): JumpAnalysis {
    const known = this.byObject.get(code);
    if (known) return known;
    const bytes = Buffer.from(code.buffer, code.byteOffset, code.byteLength);
    const key = fingerprint(bytes);
    const kept = this.byContent.get(key);
    let analysis: JumpAnalysis;
    if (kept?.code.equals(bytes)) {
      analysis = kept.analysis;
      // Most recently used last: the oldest go first.
      this.byContent.delete(key);
      this.byContent.set(key, kept);
    } else {
      analysis = analyse.call(frame, code);
      this.keep(key, Buffer.from(bytes), analysis);
    }
    this.byObject.set(code, analysis);
    return analysis;
  }

  private keep(key: string, code: Buffer, analysis: JumpAnalysis): void {
    const replaced = this.byContent.get(key);
    if (replaced) {
      this.byContent.delete(key);
      this.bytes -= replaced.code.length;
    }
    if (code.length > ANALYSED_CODE_BYTES) return;
    this.byContent.set(key, { code, analysis });
    this.bytes += code.length;
    for (const [oldest, entry] of this.byContent) {
      if (this.bytes <= ANALYSED_CODE_BYTES) break;
      this.byContent.delete(oldest);
      this.bytes -= entry.code.length;
    }
  }
}

function fingerprint(code: Buffer): string {
  const tail = Math.max(0, code.length - FINGERPRINT_BYTES);
  return `${code.length}:${code.toString("hex", 0, FINGERPRINT_BYTES)}:${code.toString("hex", tail)}`;
}

let installed = false;

/**
 * The EVM interpreter analyses a code (jump destinations, push values, the opcode table entry of
 * each byte) on every call frame that runs it. The analysis depends only on the code's bytes and
 * on the rules the EVM runs under (its opcode table, and EIP-8024's immediates), so it is kept per
 * set of rules: by code object (state caches hand out the same object for the same contract), and
 * by content for a new object holding a known code (a contract read again at a new state, the init
 * code of each deployment, a factory's CREATE2 init code), at most {@link ANALYSED_CODE_BYTES} of
 * code per set of rules. The interpreter module is internal to @ethereumjs/evm, so it is reached by
 * its file; if its layout ever changes, execution simply stays uncached.
 */
export async function cacheJumpAnalysis(): Promise<void> {
  if (installed) return;
  installed = true;
  const prototype = (await interpreterPrototype()) as Partial<InterpreterPrototype> | undefined;
  const analyse = prototype?._getValidJumpDestinations;
  if (!prototype || typeof analyse !== "function") return;
  const byRules = new Map<string, RulesAnalyses>();
  const byTable = new WeakMap<object, RulesAnalyses>();
  let lastTable: object | undefined;
  let lastAnalyses: RulesAnalyses | undefined;
  prototype._getValidJumpDestinations = function (this: AnalysingInterpreter, code) {
    const table = this._evm._opcodeMap;
    let analyses = table === lastTable ? lastAnalyses : byTable.get(table);
    if (!analyses) {
      const rules = rulesKey(table, this._evm.common);
      analyses = byRules.get(rules);
      if (!analyses) {
        analyses = new RulesAnalyses();
        byRules.set(rules, analyses);
      }
      byTable.set(table, analyses);
    }
    lastTable = table;
    lastAnalyses = analyses;
    return analyses.analysisOf(code, this, analyse);
  };
}

/** Numbers for the handler functions of opcode tables, so that equal tables give equal keys. */
const handlerIds = new WeakMap<object, number>();
let handlersNumbered = 0;

/**
 * What of an EVM's rules its analyses depend on, as a string: each opcode's table entry (name, fee,
 * whether its gas is dynamic and whether it waits, and its handlers) and whether EIP-8024 is active.
 * Each EVM builds its own table; EVMs under the same rules give the same key.
 */
function rulesKey(table: readonly (OpcodeEntry | undefined)[], common: Common): string {
  const idOf = (handler: object | undefined): number | string => {
    if (handler === undefined) return "";
    let id = handlerIds.get(handler);
    if (id === undefined) {
      id = handlersNumbered++;
      handlerIds.set(handler, id);
    }
    return id;
  };
  const entries: string[] = [];
  for (let opcode = 0; opcode < 256; opcode++) {
    const entry = table[opcode];
    if (!entry) continue;
    const { code, name, fee, dynamicGas, isAsync } = entry.opcodeInfo;
    entries.push(
      `${opcode}=${code}:${name}:${fee}:${dynamicGas ? 1 : 0}${isAsync ? 1 : 0}:${idOf(entry.opHandler)}:${idOf(entry.gasHandler)}`,
    );
  }
  return `${entries.join(",")}|8024:${common.isActivatedEIP(8024) ? 1 : 0}`;
}
