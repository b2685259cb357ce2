import { bytesToHex } from "@ethereumjs/util";
import { decodeRevertReason } from "../call/revert-reason.js";
import type { EmittedLog, FrameEnter, FrameExit, FrameType, Tracer, TxStart } from "./tracer.js";

/** geth's error text for a revert. */
export const REVERT_MESSAGE = "execution reverted";

/** callTracer options (geth's `callTracerConfig`). */
export interface CallTracerOptions {
  readonly onlyTopCall?: boolean;
  readonly withLog?: boolean;
}

/** A log in a call frame: `position` is how many sub-calls the frame had made when it was emitted. */
export interface CallLog {
  address: string;
  topics: string[];
  data: string;
  index: string;
  position: string;
}

/** One call frame as geth's callTracer returns it. */
export interface CallFrame {
  type: FrameType;
  from: string;
  gas: string;
  gasUsed: string;
  to?: string;
  input: string;
  output?: string;
  error?: string;
  revertReason?: string;
  calls?: CallFrame[];
  logs?: CallLog[];
  value?: string;
}

const hex = (n: bigint) => `0x${n.toString(16)}`;

/** geth's callTracer: the tree of call frames of a transaction, optionally with their logs. */
export class CallTracer implements Tracer {
  readonly wantsOpcodes = false;
  private readonly stack: CallFrame[] = [];
  private root: CallFrame | undefined;
  private gasLimit = 0n;
  /** The depth of the running frame, tracked even when sub-calls are not recorded. */
  private depth = 0;

  constructor(private readonly options: CallTracerOptions = {}) {}

  onTxStart(start: TxStart): void {
    this.gasLimit = start.gasLimit;
  }

  onEnter(frame: FrameEnter): void {
    this.depth = frame.depth;
    if (this.options.onlyTopCall && frame.depth > 0) return;
    const json: CallFrame = {
      type: frame.type,
      from: frame.from.toString(),
      gas: hex(frame.depth === 0 ? this.gasLimit : frame.gas),
      gasUsed: "0x0",
      ...(frame.to ? { to: frame.to.toString() } : {}),
      input: bytesToHex(frame.input),
      ...(frame.value !== undefined ? { value: hex(frame.value) } : {}),
    };
    if (frame.depth === 0) this.root = json;
    this.stack.push(json);
  }

  onExit(frame: FrameExit): void {
    this.depth = frame.depth - 1;
    if (this.options.onlyTopCall && frame.depth > 0) return;
    const json = this.stack.pop();
    if (!json) return;
    json.gasUsed = hex(frame.gasUsed);
    if (frame.createdAddress && !frame.error) json.to = frame.createdAddress.toString();
    processOutput(json, frame);
    const parent = this.stack[this.stack.length - 1];
    if (parent && frame.depth > 0) {
      parent.calls ??= [];
      parent.calls.push(json);
    }
  }

  onLog(log: EmittedLog): void {
    if (!this.options.withLog || (this.options.onlyTopCall && this.depth > 0)) return;
    const top = this.stack[this.stack.length - 1];
    if (!top) return;
    top.logs ??= [];
    top.logs.push({
      address: log.address.toString(),
      topics: log.topics.map((t) => bytesToHex(t)),
      data: bytesToHex(log.data),
      index: hex(BigInt(log.index)),
      position: hex(BigInt(top.calls?.length ?? 0)),
    });
  }

  onTxEnd(end: { gasUsed: bigint }): void {
    if (!this.root) return;
    this.root.gasUsed = hex(end.gasUsed);
    if (this.options.withLog) clearFailedLogs(this.root, false);
  }

  result(): CallFrame {
    if (!this.root) throw new Error("incorrect number of top-level calls");
    return this.root;
  }
}

function processOutput(json: CallFrame, frame: FrameExit): void {
  if (!frame.error) {
    if (frame.output.length > 0) json.output = bytesToHex(frame.output);
    return;
  }
  json.error = frame.error;
  if (json.type === "CREATE" || json.type === "CREATE2") delete json.to;
  if (frame.error !== REVERT_MESSAGE || frame.output.length === 0) return;
  json.output = bytesToHex(frame.output);
  if (frame.output.length < 4) return;
  const reason = decodeErrorString(frame.output);
  if (reason !== undefined) json.revertReason = reason;
}

const PANIC_SELECTOR = "0x4e487b71";

/** geth's `abi.UnpackRevert`: the string of `Error(string)` or the description of `Panic(uint256)`. */
function decodeErrorString(output: Uint8Array): string | undefined {
  const reason = decodeRevertReason(output);
  if (reason === undefined || bytesToHex(output.subarray(0, 4)) !== PANIC_SELECTOR) return reason;
  return reason.replace(/ \(0x[0-9a-f]+\)$/, "");
}

function clearFailedLogs(json: CallFrame, parentFailed: boolean): void {
  const failed = parentFailed || json.error !== undefined;
  if (failed) delete json.logs;
  for (const child of json.calls ?? []) clearFailedLogs(child, failed);
}
