import type { EVMResult, InterpreterStep, Message } from "@ethereumjs/evm";
import type { TypedTransaction } from "@ethereumjs/tx";
import {
  type Address,
  bigIntToBytes,
  createAddressFromBigInt,
  createContractAddress,
  type EOACode7702AuthorizationListBytesItem,
  eoaCode7702RecoverAuthority,
  setLengthLeft,
} from "@ethereumjs/util";
import type { RunTxResult, VM } from "@ethereumjs/vm";
import { ExecutionTimeoutError } from "../../errors/domain-errors.js";
import { enforceRunLimits, evmLimit, limitEvm, withDeadline } from "../evm/run-limits.js";
import { selectSteps } from "../evm/selective-steps.js";
import { type ProbedStep, probeSteps } from "../evm/step-probe.js";
import type { EmittedLog, FrameType, Tracer } from "./tracer.js";
import { CODE_STORE_OUT_OF_GAS, gethErrorMessage, REVERT } from "./vm-errors.js";

/** Where the traced transaction runs. */
export interface TracedTx {
  readonly tx: TypedTransaction;
  readonly sender: Address;
  readonly coinbase: Address;
  /** How many logs earlier transactions of the block emitted (the first log index of this one). */
  readonly logIndexBase: number;
  /** `performance.now()` after which the trace is aborted with geth's "execution timeout". */
  readonly deadline: number;
}

interface ActiveFrame {
  readonly type: FrameType;
  /** The last opcode run in the frame, and whether the gas left covered its cost. */
  lastOp: { name: string; code: number; affordable: boolean } | undefined;
  returnData: Uint8Array;
  readonly logsAtEntry: number;
  pendingLog: Omit<EmittedLog, "index"> | undefined;
}

/** What the frame hooks read of a step: a step event's fields, which a probed step has too. */
type FramingStep = Pick<InterpreterStep, "depth" | "gasLeft" | "stack" | "memory" | "address" | "account"> & {
  readonly opcode: {
    readonly name: string;
    readonly code: number;
    readonly fee: number;
    readonly dynamicFee?: bigint;
  };
};

const CALL_OPS = new Set<string>(["CALL", "CALLCODE", "DELEGATECALL", "STATICCALL", "CREATE", "CREATE2"]);
const SELFDESTRUCT = 0xff;
const EMPTY = new Uint8Array();
const MAX_LOG_DATA = 32 * 1024 * 1024;
const CALL_STIPEND = 2300n;

/**
 * Runs one transaction with `tracer` attached to the VM's message and step events, translating them
 * into geth's tracing hooks (frames, opcodes, logs). `run` executes the transaction on `vm`. A
 * failure of the tracer (or the deadline) stops the run and is thrown.
 */
export async function runWithTracer(
  vm: VM,
  tracer: Tracer,
  traced: TracedTx,
  run: () => Promise<RunTxResult>,
): Promise<RunTxResult> {
  const { result, failure } = await traceRun(vm, tracer, traced, run, false);
  if (failure) throw failure;
  return result;
}

/**
 * Runs one transaction as {@link runWithTracer} does, except that nothing the tracer does can stop
 * or change the run (a block being built): `traced` is false when the tracer failed, and its
 * result is then not to be used. Errors of the run itself are thrown.
 */
export async function runWatched(
  vm: VM,
  tracer: Tracer,
  traced: Omit<TracedTx, "deadline">,
  run: () => Promise<RunTxResult>,
): Promise<{ readonly result: RunTxResult; readonly traced: boolean }> {
  const { result, failure } = await traceRun(
    vm,
    tracer,
    { ...traced, deadline: Number.POSITIVE_INFINITY },
    run,
    true,
  );
  return { result, traced: failure === undefined };
}

async function traceRun(
  vm: VM,
  tracer: Tracer,
  traced: TracedTx,
  run: () => Promise<RunTxResult>,
  passive: boolean,
): Promise<{ readonly result: RunTxResult; readonly failure: unknown }> {
  const { tx, sender } = traced;
  const state = vm.stateManager;
  const events = vm.evm.events!;
  const frames: ActiveFrame[] = [];
  let liveLogs = 0;
  let failure: unknown;

  /**
   * Whether a hook may run: false once a passive watcher has failed (the run goes on unwatched);
   * throws an active tracer's failure, or the deadline's error once it has passed.
   */
  const mayRun = (): boolean => {
    if (failure) {
      if (passive) return false;
      throw failure;
    }
    if (performance.now() > traced.deadline) throw new ExecutionTimeoutError();
    return true;
  };
  const commitPendingLog = (frame: ActiveFrame) => {
    if (!frame.pendingLog) return;
    tracer.onLog?.({ ...frame.pendingLog, index: traced.logIndexBase + liveLogs });
    liveLogs++;
    frame.pendingLog = undefined;
  };

  const onMessage = (message: Message) => {
    const depth = message.depth;
    let type: FrameType;
    if (depth === 0) type = tx.to ? "CALL" : "CREATE";
    else type = (frames[depth - 1]?.lastOp?.name as FrameType | undefined) ?? "CALL";
    if (!CALL_OPS.has(type)) type = "CALL";
    let from = message.caller;
    let to = message.to;
    if (type === "CALLCODE") to = message.codeAddress;
    if (type === "DELEGATECALL") {
      from = message.to ?? message.caller;
      to = message.codeAddress;
    }
    frames.push({ type, lastOp: undefined, returnData: EMPTY, logsAtEntry: liveLogs, pendingLog: undefined });
    tracer.onEnter?.({
      depth,
      type,
      from: depth === 0 ? sender : from,
      to,
      input: message.data,
      gas: depth === 0 ? tx.gasLimit : message.gasLimit,
      value: type === "STATICCALL" ? undefined : message.value,
    });
  };

  const onMessageEnd = (result: EVMResult) => {
    const frame = frames.pop();
    if (!frame) return;
    const depth = frames.length;
    const exception = result.execResult.exceptionError;
    let error = exception ? gethErrorMessage(exception.error, frame.lastOp) : undefined;
    // Init code that returned but could not pay for storing the code fails with geth's own error.
    const isCreate = frame.type === "CREATE" || frame.type === "CREATE2";
    if (error === "out of gas" && isCreate && frame.lastOp?.name === "RETURN" && frame.lastOp.affordable) {
      error = CODE_STORE_OUT_OF_GAS;
    }
    if (error) {
      liveLogs = frame.logsAtEntry;
    } else {
      commitPendingLog(frame);
    }
    const output = result.execResult.returnValue;
    const parent = frames[depth - 1];
    if (parent) {
      parent.returnData = !isCreate || exception?.error === REVERT ? output : EMPTY;
    }
    tracer.onExit?.({
      depth,
      output,
      gasUsed: result.execResult.executionGasUsed,
      error,
      createdAddress: result.createdAddress,
    });
  };

  /** A step as its frame sees it first: the log before it is kept, and the opcode noted; its cost. */
  const enterStep = (frame: ActiveFrame, step: FramingStep): bigint => {
    commitPendingLog(frame);
    const cost = step.opcode.dynamicFee ?? BigInt(step.opcode.fee);
    frame.lastOp = { name: step.opcode.name, code: step.opcode.code, affordable: step.gasLeft >= cost };
    return cost;
  };

  /** What a step other than SELFDESTRUCT adds once it ran: its log, or the frame of a call it cannot fund. */
  const leaveStep = (frame: ActiveFrame, step: FramingStep) => {
    const code = step.opcode.code;
    if (code >= 0xa0 && code <= 0xa4) frame.pendingLog = logOf(step, code - 0xa0);
    if ((code === 0xf1 || code === 0xf2) && step.stack.length >= 7)
      unfundedCallFrame(step, step.opcode.name as FrameType);
  };

  const onStep = async (step: InterpreterStep) => {
    const frame = frames[step.depth];
    if (!frame) return;
    const cost = enterStep(frame, step);
    if (tracer.wantsOpcodes && tracer.onOpcode) {
      await tracer.onOpcode({
        pc: step.pc,
        op: step.opcode.name,
        opcode: step.opcode.code,
        gas: step.gasLeft,
        cost,
        depth: step.depth + 1,
        stack: step.stack,
        memory: step.memory,
        address: step.address,
        refund: step.gasRefund,
        returnData: frame.returnData,
        state: step.stateManager,
      });
    }
    if (step.opcode.code === SELFDESTRUCT) {
      if (step.stack.length > 0) await selfDestructFrame(step);
    } else leaveStep(frame, step);
  };

  /** A probed step, heard synchronously from the interpreter (every framing opcode but SELFDESTRUCT). */
  const onProbedStep = (step: ProbedStep) => {
    if (!mayRun()) return;
    const frame = frames[step.depth];
    if (!frame) return;
    try {
      enterStep(frame, step);
      leaveStep(frame, step);
    } catch (error) {
      failure = error;
      if (!passive) throw error;
    }
  };

  /**
   * A CALL whose value exceeds the caller's balance fails without entering a frame in the EVM; geth
   * still reports the frame, with the gas it would have handed over and its error.
   */
  const unfundedCallFrame = (step: FramingStep, type: FrameType) => {
    const top = step.stack.length - 1;
    const value = step.stack[top - 2]!;
    const cost = step.opcode.dynamicFee ?? BigInt(step.opcode.fee);
    if (value === 0n || step.account.balance >= value || step.gasLeft < cost) return;
    const available = step.gasLeft - cost;
    const cap = available - available / 64n;
    const requested = step.stack[top]!;
    const depth = step.depth + 1;
    tracer.onEnter?.({
      depth,
      type,
      from: step.address,
      to: createAddressFromBigInt(step.stack[top - 1]!),
      input: memorySlice(step.memory, step.stack[top - 3]!, step.stack[top - 4]!),
      gas: (requested < cap ? requested : cap) + CALL_STIPEND,
      value,
    });
    tracer.onExit?.({
      depth,
      output: EMPTY,
      gasUsed: 0n,
      error: "insufficient balance for transfer",
      createdAddress: undefined,
    });
  };

  const selfDestructFrame = async (step: InterpreterStep) => {
    const beneficiary = createAddressFromBigInt(step.stack[step.stack.length - 1]!);
    const balance = (await step.stateManager.getAccount(step.address))?.balance ?? 0n;
    const depth = step.depth + 1;
    tracer.onEnter?.({
      depth,
      type: "SELFDESTRUCT",
      from: step.address,
      to: beneficiary,
      input: EMPTY,
      gas: 0n,
      value: balance,
    });
    tracer.onExit?.({ depth, output: EMPTY, gasUsed: 0n, error: undefined, createdAddress: undefined });
  };

  // Two-argument listeners are awaited by the EVM; a synchronous throw aborts the execution.
  const guard =
    <T>(handle: (data: T) => unknown) =>
    (data: T, resolve?: (result?: unknown) => void) => {
      if (!mayRun()) return resolve?.();
      Promise.resolve()
        .then(() => handle(data))
        .then(
          () => resolve?.(),
          (error: unknown) => {
            failure = error;
            resolve?.();
          },
        );
    };
  const listeners = {
    beforeMessage: guard(onMessage),
    afterMessage: guard(onMessageEnd),
    step: guard(onStep),
  };
  const fromAccount = await state.getAccount(sender);
  try {
    await tracer.onTxStart?.({
      from: sender,
      to: tx.to ?? createContractAddress(sender, fromAccount?.nonce ?? 0n),
      isCreate: !tx.to,
      gasLimit: tx.gasLimit,
      value: tx.value,
      coinbase: traced.coinbase,
      authorities: authoritiesOf(tx),
      state,
    });
  } catch (error) {
    if (!passive) throw error;
    failure = error;
  }
  events.on("beforeMessage", listeners.beforeMessage);
  events.on("afterMessage", listeners.afterMessage);
  // A tracer without opcode output hears the steps that open frames, log, halt or fail alone, and
  // the interpreter keeps the deadline those other steps no longer check. It hears them from a step
  // probe, synchronously and without a step event (a copy of the stack and the memory and an
  // awaited emit each), but for SELFDESTRUCT, whose frame reads the balance from the state.
  const outerLimit = evmLimit(vm.evm);
  // Ends the selected steps and the probe of a tracer without opcode output.
  let stopFraming: (() => void) | undefined;
  if (tracer.wantsOpcodes) events.on("step", listeners.step);
  else {
    await enforceRunLimits();
    limitEvm(vm.evm, withDeadline(outerLimit, traced.deadline));
    const stopSelecting = await selectSteps(vm.evm, SELFDESTRUCT_ONLY, listeners.step);
    const stopProbing = probeSteps(vm.evm, framingOpcodes(vm), onProbedStep);
    stopFraming = () => {
      stopSelecting();
      stopProbing();
    };
  }
  let result: RunTxResult;
  try {
    result = await run();
  } catch (error) {
    throw passive ? error : (failure ?? error);
  } finally {
    events.off("beforeMessage", listeners.beforeMessage);
    events.off("afterMessage", listeners.afterMessage);
    if (stopFraming) {
      stopFraming();
      limitEvm(vm.evm, outerLimit);
    } else events.off("step", listeners.step);
  }
  if (failure) return { result, failure };
  try {
    await tracer.onTxEnd?.({ gasUsed: result.totalGasSpent, state });
  } catch (error) {
    if (!passive) throw error;
    return { result, failure: error };
  }
  return { result, failure: undefined };
}

/** The framing opcodes of each opcode table (the table changes only with the rules). */
const framingByTable = new WeakMap<object, Uint8Array>();

/** SELFDESTRUCT alone: the framing step a tracer without opcode output hears as a step event. */
const SELFDESTRUCT_ONLY = new Uint8Array(256);
SELFDESTRUCT_ONLY[SELFDESTRUCT] = 1;

/**
 * The opcodes whose steps a tracer without opcode output probes: those that open a frame (its type
 * is the opcode's) or end one (RETURN of init code that cannot pay for its code, REVERT, INVALID and
 * every opcode the rules do not define: their errors name them), and the logs; every opcode from
 * 0xf0 up but SELFDESTRUCT, which {@link SELFDESTRUCT_ONLY} selects for a step event.
 */
function framingOpcodes(vm: VM): Uint8Array {
  // The EVM class keeps its rules' opcode table; the interface it is typed by does not name it.
  const table = (vm.evm as unknown as { readonly opcodes: ReadonlyMap<number, unknown> }).opcodes;
  let flags = framingByTable.get(table);
  if (!flags) {
    flags = new Uint8Array(256);
    for (let code = 0; code < 256; code++) {
      const isLog = code >= 0xa0 && code <= 0xa4;
      if (code !== SELFDESTRUCT && (isLog || code >= 0xf0 || !table.has(code))) flags[code] = 1;
    }
    framingByTable.set(table, flags);
  }
  return flags;
}

function authoritiesOf(tx: TypedTransaction): Address[] {
  const list =
    (tx as { authorizationList?: EOACode7702AuthorizationListBytesItem[] }).authorizationList ?? [];
  const authorities: Address[] = [];
  for (const item of list) {
    try {
      authorities.push(eoaCode7702RecoverAuthority(item));
    } catch {
      // An authorization whose signature does not recover is skipped, as the EVM skips it.
    }
  }
  return authorities;
}

/** `size` bytes of memory from `offset`, zero-padded past its end (empty when absurdly large). */
function memorySlice(memory: Uint8Array, offset: bigint, size: bigint): Uint8Array {
  if (size === 0n || size > BigInt(MAX_LOG_DATA) || offset > BigInt(Number.MAX_SAFE_INTEGER)) return EMPTY;
  const out = new Uint8Array(Number(size));
  const start = Number(offset);
  if (start < memory.length) out.set(memory.subarray(start, start + out.length));
  return out;
}

function logOf(step: FramingStep, topicCount: number): Omit<EmittedLog, "index"> | undefined {
  const stack = step.stack;
  if (stack.length < 2 + topicCount) return undefined;
  const top = stack.length - 1;
  const topics: Uint8Array[] = [];
  for (let i = 0; i < topicCount; i++) topics.push(setLengthLeft(bigIntToBytes(stack[top - 2 - i]!), 32));
  return { address: step.address, topics, data: memorySlice(step.memory, stack[top]!, stack[top - 1]!) };
}
