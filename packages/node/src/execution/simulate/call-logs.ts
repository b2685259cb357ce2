import type { EVM, EVMResult, InterpreterStep, Message } from "@ethereumjs/evm";
import { bigIntToBytes, setLengthLeft } from "@ethereumjs/util";
import type { StoredLog } from "../../storage/records.js";

/** The event signature of an ERC-20 `Transfer(address,address,uint256)`, used for ether transfer logs. */
const TRANSFER_TOPIC = Buffer.from("ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef", "hex");
/** ERC-7528's address for the native currency: the emitter of ether transfer logs. */
const NATIVE_CURRENCY = Buffer.from("eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", "hex");

/** A log of a simulated call with its index in the simulated block, as geth numbers them. */
export interface IndexedLog extends StoredLog {
  readonly index: number;
}

interface PendingLog {
  log: IndexedLog;
  /** A transfer into a contract being created: its recipient is known only when the frame ends. */
  createdBy?: Message;
}

interface Frame {
  readonly logs: PendingLog[];
  /** A log whose opcode has not completed yet (it may still fail, e.g. out of gas). */
  unconfirmed?: StoredLog;
}

function word(value: bigint): Uint8Array {
  return setLengthLeft(bigIntToBytes(value), 32);
}

function transferLog(from: Uint8Array, to: Uint8Array, value: bigint): StoredLog {
  return {
    address: NATIVE_CURRENCY,
    topics: [TRANSFER_TOPIC, setLengthLeft(from, 32), setLengthLeft(to, 32)],
    data: word(value),
  };
}

/**
 * Records the logs of the calls of one simulated block in emission order, as geth's simulation
 * tracer does: with `traceTransfers`, ether transfers (call values, including the call's own, and
 * self-destruct balances) appear among them as ERC-7528 `Transfer` logs. Logs of frames that fail
 * are dropped with their frame, but still take up a log index: indexes count every log emitted in
 * the block so far, as geth's do.
 */
export class TransferLogCollector {
  private frames: Frame[] = [];
  private done: PendingLog[] = [];
  /** Logs emitted in the block so far, kept or not: the next log's index. */
  private count = 0;

  private readonly onMessage = (message: Message, resolve?: (result?: unknown) => void) => {
    this.confirm();
    const frame: Frame = { logs: [] };
    if (this.traceTransfers && !message.delegatecall && message.value > 0n) {
      const entry: PendingLog = {
        log: this.indexed(
          transferLog(message.caller.bytes, message.to?.bytes ?? new Uint8Array(20), message.value),
        ),
      };
      if (!message.to) entry.createdBy = message;
      frame.logs.push(entry);
    }
    this.frames.push(frame);
    resolve?.();
  };

  private readonly onResult = (result: EVMResult, resolve?: (result?: unknown) => void) => {
    const failed = result.execResult.exceptionError !== undefined;
    // A log still unconfirmed when its frame fails is the opcode that failed: it was never emitted.
    if (!failed) this.confirm();
    const frame = this.frames.pop() ?? { logs: [] };
    if (!failed) {
      for (const entry of frame.logs) {
        if (entry.createdBy && result.createdAddress) {
          const topics = [...entry.log.topics];
          topics[2] = setLengthLeft(result.createdAddress.bytes, 32);
          entry.log = { ...entry.log, topics };
          delete entry.createdBy;
        }
      }
      const parent = this.frames[this.frames.length - 1]?.logs ?? this.done;
      parent.push(...frame.logs);
    }
    resolve?.();
  };

  private readonly onStep = (step: InterpreterStep, resolve?: (result?: unknown) => void) => {
    this.confirm();
    const frame = this.frames[this.frames.length - 1];
    const { name } = step.opcode;
    const stack = step.stack;
    const top = stack.length - 1;
    if (name === "SELFDESTRUCT" && this.traceTransfers && frame && stack.length >= 1) {
      // The contract's whole balance goes to the beneficiary on the stack.
      const beneficiary = setLengthLeft(bigIntToBytes(stack[top]!), 20);
      step.stateManager.getAccount(step.address).then(
        (account) => {
          const value = account?.balance ?? 0n;
          if (value > 0n) frame.unconfirmed = transferLog(step.address.bytes, beneficiary, value);
          resolve?.();
        },
        () => resolve?.(),
      );
      return;
    }
    if (name.startsWith("LOG") && frame) {
      const count = Number(name.slice(3));
      if (stack.length >= 2 + count) {
        const offset = Number(stack[top]!);
        const size = Number(stack[top - 1]!);
        const data = new Uint8Array(size);
        data.set(step.memory.subarray(offset, offset + size));
        const topics = Array.from({ length: count }, (_, i) => word(stack[top - 2 - i]!));
        frame.unconfirmed = { address: step.address.bytes, topics, data };
      }
    }
    resolve?.();
  };

  constructor(
    private readonly evm: EVM,
    private readonly traceTransfers: boolean,
  ) {}

  /** Starts listening to the EVM for the block's next call. */
  start(): void {
    this.frames = [];
    this.done = [];
    this.evm.events.on("beforeMessage", this.onMessage);
    this.evm.events.on("afterMessage", this.onResult);
    this.evm.events.on("step", this.onStep);
  }

  /** Stops listening and returns the call's logs. */
  finish(): IndexedLog[] {
    this.evm.events.off("beforeMessage", this.onMessage);
    this.evm.events.off("afterMessage", this.onResult);
    this.evm.events.off("step", this.onStep);
    return this.done.map((entry) => entry.log);
  }

  private indexed(log: StoredLog): IndexedLog {
    return { ...log, index: this.count++ };
  }

  /** The innermost frame went on past its last log's opcode: that log was emitted. */
  private confirm(): void {
    const frame = this.frames[this.frames.length - 1];
    if (!frame?.unconfirmed) return;
    frame.logs.push({ log: this.indexed(frame.unconfirmed) });
    delete frame.unconfirmed;
  }
}
