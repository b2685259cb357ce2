import type { EVM, EVMResult, InterpreterStep, Message } from "@ethereumjs/evm";
import { bigIntToBytes, setLengthLeft } from "@ethereumjs/util";
import type { StoredLog } from "../../storage/records.js";

/** The event signature of an ERC-20 `Transfer(address,address,uint256)`, used for ether transfer logs. */
const TRANSFER_TOPIC = Buffer.from("ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef", "hex");
/** ERC-7528's address for the native currency: the emitter of ether transfer logs. */
const NATIVE_CURRENCY = Buffer.from("eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", "hex");

interface PendingLog {
  log: StoredLog;
  /** A transfer into a contract being created: its recipient is known only when the frame ends. */
  createdBy?: Message;
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
 * Records the logs of one transaction in emission order, with ether transfers (call values,
 * including the transaction's own) as ERC-7528 `Transfer` logs among them, as geth's
 * `traceTransfers` does. Logs of frames that fail are dropped with their frame.
 */
export class TransferLogCollector {
  private frames: PendingLog[][] = [];
  private done: PendingLog[] = [];

  private readonly onMessage = (message: Message, resolve?: (result?: unknown) => void) => {
    const frame: PendingLog[] = [];
    if (!message.delegatecall && message.value > 0n) {
      const entry: PendingLog = {
        log: transferLog(message.caller.bytes, message.to?.bytes ?? new Uint8Array(20), message.value),
      };
      if (!message.to) entry.createdBy = message;
      frame.push(entry);
    }
    this.frames.push(frame);
    resolve?.();
  };

  private readonly onResult = (result: EVMResult, resolve?: (result?: unknown) => void) => {
    const frame = this.frames.pop() ?? [];
    if (!result.execResult.exceptionError) {
      for (const entry of frame) {
        if (entry.createdBy && result.createdAddress) {
          const topics = [...entry.log.topics];
          topics[2] = setLengthLeft(result.createdAddress.bytes, 32);
          entry.log = { ...entry.log, topics };
          delete entry.createdBy;
        }
      }
      const parent = this.frames[this.frames.length - 1] ?? this.done;
      parent.push(...frame);
    }
    resolve?.();
  };

  private readonly onStep = (step: InterpreterStep, resolve?: (result?: unknown) => void) => {
    const { name } = step.opcode;
    if (name === "SELFDESTRUCT") {
      // The contract's whole balance goes to the beneficiary on the stack.
      const beneficiary = setLengthLeft(bigIntToBytes(step.stack[step.stack.length - 1]!), 20);
      const frame = this.frames[this.frames.length - 1];
      step.stateManager.getAccount(step.address).then(
        (account) => {
          const value = account?.balance ?? 0n;
          if (value > 0n) frame?.push({ log: transferLog(step.address.bytes, beneficiary, value) });
          resolve?.();
        },
        () => resolve?.(),
      );
      return;
    }
    if (name.startsWith("LOG")) {
      const count = Number(name.slice(3));
      const stack = step.stack;
      const top = stack.length - 1;
      const offset = Number(stack[top]!);
      const size = Number(stack[top - 1]!);
      const data = new Uint8Array(size);
      data.set(step.memory.subarray(offset, offset + size));
      const topics = Array.from({ length: count }, (_, i) => word(stack[top - 2 - i]!));
      this.frames[this.frames.length - 1]?.push({ log: { address: step.address.bytes, topics, data } });
    }
    resolve?.();
  };

  constructor(private readonly evm: EVM) {}

  /** Starts listening to the EVM for one transaction. */
  start(): void {
    this.frames = [];
    this.done = [];
    this.evm.events.on("beforeMessage", this.onMessage);
    this.evm.events.on("afterMessage", this.onResult);
    this.evm.events.on("step", this.onStep);
  }

  /** Stops listening and returns the transaction's logs. */
  finish(): StoredLog[] {
    this.evm.events.off("beforeMessage", this.onMessage);
    this.evm.events.off("afterMessage", this.onResult);
    this.evm.events.off("step", this.onStep);
    return this.done.map((entry) => entry.log);
  }
}
