import { bytesToHex, setLengthLeft } from "@ethereumjs/util";
import { OutputLimitError } from "../../errors/domain-errors.js";
import { REVERT_MESSAGE } from "./call-tracer.js";
import type { FrameEnter, FrameExit, OpcodeStep, Tracer } from "./tracer.js";

/** geth's struct logger options (`logger.Config`). */
export interface StructLoggerOptions {
  readonly enableMemory?: boolean;
  readonly disableStack?: boolean;
  readonly disableStorage?: boolean;
  readonly enableReturnData?: boolean;
  /** Stop recording once the output exceeds this many bytes; 0 = unlimited. */
  readonly limit?: number;
}

/** The node's caps on one struct-logger answer; beyond either the trace fails with {@link OutputLimitError}. */
export interface StructLogCaps {
  readonly maxSteps: number;
  readonly maxBytes: number;
}

const UNCAPPED: StructLogCaps = { maxSteps: Number.POSITIVE_INFINITY, maxBytes: Number.POSITIVE_INFINITY };

/** One entry of `structLogs`, as geth serialises it. */
interface StructLogEntry {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  error?: string;
  stack?: string[];
  returnData?: string;
  memory?: string[];
  storage?: Record<string, string>;
  refund?: number;
}

/** The default tracer's result (geth's `ExecutionResult`). */
export interface StructLogResult {
  gas: number;
  failed: boolean;
  returnValue: string;
  structLogs: StructLogEntry[];
}

const CALL_WITH_VALUE = new Set(["CALL", "CALLCODE"]);
const CALLS = new Set(["CALL", "CALLCODE", "DELEGATECALL", "STATICCALL"]);
const CALL_STIPEND = 2300n;
const PRE_EXECUTION_ERRORS = new Set(["out of gas", "stack underflow", "stack limit reached 1024"]);

/**
 * geth's default tracer: one entry per executed opcode with pc, op, gas, cost and depth, plus the
 * stack, memory, storage and return data as its options ask. The node's `caps` bound the entries
 * and their JSON size: a trace that would go beyond stops with {@link OutputLimitError} (a client
 * that wants less asks with `limit`, which truncates instead, as geth).
 */
export class StructLogger implements Tracer {
  readonly wantsOpcodes = true;
  private readonly logs: StructLogEntry[] = [];
  /** The last entry logged at each depth, to add a call's forwarded gas to its cost once known. */
  private readonly lastAtDepth: StructLogEntry[] = [];
  private readonly storage = new Map<string, Map<string, string>>();
  private size = 0;
  private output: Uint8Array = new Uint8Array();
  private error: string | undefined;
  private gasUsed = 0n;

  constructor(
    private readonly options: StructLoggerOptions = {},
    private readonly caps: StructLogCaps = UNCAPPED,
  ) {}

  async onOpcode(step: OpcodeStep): Promise<void> {
    const limit = this.options.limit ?? 0;
    if (limit !== 0 && this.size > limit) return;
    if (this.logs.length >= this.caps.maxSteps) {
      throw new OutputLimitError(
        `trace exceeds ${this.caps.maxSteps} struct log entries`,
        "traceMaxSteps",
        this.caps.maxSteps,
      );
    }
    const entry: StructLogEntry = {
      pc: step.pc,
      op: step.op,
      gas: Number(step.gas),
      gasCost: Number(step.cost),
      depth: step.depth,
    };
    if (!this.options.disableStack) entry.stack = step.stack.map((v) => `0x${v.toString(16)}`);
    if (this.options.enableReturnData && step.returnData.length > 0)
      entry.returnData = bytesToHex(step.returnData);
    if (this.options.enableMemory && step.memory.length > 0) entry.memory = memoryWords(step.memory);
    if (!this.options.disableStorage && (step.op === "SLOAD" || step.op === "SSTORE")) {
      const storage = await this.recordStorage(step);
      if (storage) entry.storage = storage;
    }
    if (step.refund > 0n) entry.refund = Number(step.refund);
    this.logs.push(entry);
    this.lastAtDepth[step.depth] = entry;
    this.size += JSON.stringify(entry).length;
    if (this.size > this.caps.maxBytes) {
      throw new OutputLimitError(
        `trace exceeds ${this.caps.maxBytes} bytes of struct logs`,
        "traceMaxBytes",
        this.caps.maxBytes,
      );
    }
  }

  onEnter(frame: FrameEnter): void {
    if (frame.depth === 0 || frame.type === "SELFDESTRUCT") return;
    // geth counts the gas handed to a called frame in the CALL's cost (without the value stipend).
    const caller = this.lastAtDepth[frame.depth];
    if (!caller || !CALLS.has(caller.op)) return;
    const stipend = CALL_WITH_VALUE.has(caller.op) && (frame.value ?? 0n) > 0n ? CALL_STIPEND : 0n;
    caller.gasCost += Number(frame.gas - stipend);
  }

  onExit(frame: FrameExit): void {
    // geth records these failures on the opcode that hit them (they are checked before it runs).
    const last = this.logs[this.logs.length - 1];
    if (frame.error && PRE_EXECUTION_ERRORS.has(frame.error) && last === this.lastAtDepth[frame.depth + 1]) {
      if (last) last.error = frame.error;
    }
    if (frame.depth !== 0) return;
    this.output = frame.output;
    this.error = frame.error;
  }

  onTxEnd(end: { gasUsed: bigint }): void {
    this.gasUsed = end.gasUsed;
  }

  result(): StructLogResult {
    const failed = this.error !== undefined;
    const returnValue = failed && this.error !== REVERT_MESSAGE ? "0x" : bytesToHex(this.output);
    return { gas: Number(this.gasUsed), failed, returnValue, structLogs: this.logs };
  }

  private async recordStorage(step: OpcodeStep): Promise<Record<string, string> | undefined> {
    const top = step.stack.length - 1;
    const address = step.address.toString();
    let slots = this.storage.get(address);
    if (!slots) {
      slots = new Map();
      this.storage.set(address, slots);
    }
    if (step.op === "SLOAD" && top >= 0) {
      const key = word(step.stack[top]!);
      const value = await step.state.getStorage(step.address, setLengthLeft(hexBytes(key), 32));
      slots.set(key, bytesToHex(setLengthLeft(value, 32)));
    } else if (step.op === "SSTORE" && top >= 1) {
      slots.set(word(step.stack[top]!), word(step.stack[top - 1]!));
    } else {
      return undefined;
    }
    return Object.fromEntries(slots);
  }
}

function word(value: bigint): string {
  return `0x${value.toString(16).padStart(64, "0")}`;
}

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex.slice(2), "hex"));
}

function memoryWords(memory: Uint8Array): string[] {
  const words: string[] = [];
  for (let i = 0; i < memory.length; i += 32) {
    const chunk = new Uint8Array(32);
    chunk.set(memory.subarray(i, i + 32));
    words.push(bytesToHex(chunk));
  }
  return words;
}
