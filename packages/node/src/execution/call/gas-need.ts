import type { EVMResult, Message } from "@ethereumjs/evm";
import type { VM } from "@ethereumjs/vm";
import { type ProbedStep, probeSteps } from "../evm/step-probe.js";

/** A point in a frame where the gas left matters: an SSTORE (EIP-2200's sentry) or a call. */
type Checkpoint =
  | { readonly kind: "store"; readonly gasLeft: bigint }
  | {
      readonly kind: "call";
      /** Gas left before the opcode. */
      readonly gasLeft: bigint;
      /** What the opcode itself costs (memory, access, value transfer), not the gas it hands over. */
      readonly cost: bigint;
      /** The gas the caller asked to hand over (unbounded for CREATE and CREATE2). */
      readonly requested: bigint;
      /** The free gas a value transfer adds for the callee. */
      readonly stipend: bigint;
      child?: ChildOutcome;
    };

/** How a sub-frame ended, and the least gas it needs to end that way. */
interface ChildOutcome {
  readonly need: bigint;
  readonly used: bigint;
  /** It failed and used all it was given (out of gas, invalid opcode): with less it fails alike. */
  readonly usedAll: boolean;
}

interface Frame {
  readonly gas: bigint;
  /** The account whose code runs (the sender's own code, EIP-7702, is watched); undefined for init code. */
  readonly address: string | undefined;
  readonly checkpoints: Checkpoint[];
  /** Where a `GAS` ran whose value has not yet been seen handed straight to a call. */
  gasReadAt: number | undefined;
}

const BALANCE = 0x31;
const SELFBALANCE = 0x47;
const SSTORE = 0x55;
const GAS = 0x5a;
const CREATE = 0xf0;
const CALL = 0xf1;
const CALLCODE = 0xf2;
const DELEGATECALL = 0xf4;
const CREATE2 = 0xf5;
const STATICCALL = 0xfa;
const UNBOUNDED = 2n ** 256n;

/** The opcodes the tracker hears: what the model accounts for, and what a limit changes beyond it. */
const WATCHED = new Uint8Array(256);
const WATCHED_CODES = [
  BALANCE,
  SELFBALANCE,
  SSTORE,
  GAS,
  CREATE,
  CALL,
  CALLCODE,
  DELEGATECALL,
  CREATE2,
  STATICCALL,
];
for (const code of WATCHED_CODES) WATCHED[code] = 1;
/** The calls whose gas argument a `GAS` just before them may be: the limit's effect on it is modelled. */
const GAS_TAKING_CALLS = new Set([CALL, CALLCODE, DELEGATECALL, STATICCALL]);
/** The calls that take a value (third on the stack) from the running account. */
const VALUE_CALLS = new Set([CALL, CALLCODE]);

/** What one followed run tells about the least gas limit. */
export interface GasNeed {
  /** The least gas limit with which the run goes as it went; undefined when it could not tell. */
  readonly need?: bigint;
  /**
   * The run read something a lower limit changes besides the gas the model accounts for: the gas
   * left (a `GAS` not handed straight to a call) or the sender's balance (the limit sets the fee
   * taken up front). Only a run at `need` then shows whether it still goes the same way.
   */
  readonly limitDependent: boolean;
}

/**
 * Follows one run of a transaction and works out the least gas limit with which it would run the
 * same way: every frame must still get the gas it needs after EIP-150 keeps 1/64 of the caller's
 * gas, each SSTORE must still find more than EIP-2200's sentry, and a sub-call that used all it
 * was given (an endless loop behind a try) must leave its caller enough. The only other things a
 * limit changes are what `GAS` answers and the sender's balance (by the fee paid up front): a run
 * that used neither but to hand `GAS` straight to a call runs alike at that limit, and one that
 * did is reported as {@link GasNeed.limitDependent}, for the estimator to run the figure and check.
 */
export class GasNeedTracker {
  private readonly frames: Frame[] = [];
  private topGas: bigint | undefined;
  private topNeed: bigint | undefined;
  /** The transaction's sender (lowercase hex, and as a stack word), once its top frame is entered. */
  private sender: { readonly hex: string; readonly word: bigint } | undefined;
  private limitDependent = false;

  constructor(
    private readonly callStipend: bigint,
    /** Gas that must be left for an SSTORE to run (EIP-2200), 0 before Istanbul. */
    private readonly storeSentry: bigint,
  ) {}

  /** Runs `run` on `vm` with the tracker following it: its result and what it tells of the least gas limit. */
  async follow<T>(vm: VM, txGasLimit: bigint, run: () => Promise<T>): Promise<{ result: T } & GasNeed> {
    const events = vm.evm.events;
    if (!events) return { result: await run(), limitDependent: true };
    const stopProbing = probeSteps(vm.evm, WATCHED, (step) => this.step(step));
    const onMessage = (message: Message) => this.enter(message);
    const onMessageEnd = (result: EVMResult) => this.exit(result);
    events.on("beforeMessage", onMessage);
    events.on("afterMessage", onMessageEnd);
    try {
      const result = await run();
      const { topGas, topNeed, limitDependent } = this;
      if (topGas === undefined || topNeed === undefined) return { result, limitDependent };
      // The intrinsic gas (calldata, access list, authorizations) comes off before the top frame.
      return { result, need: txGasLimit - topGas + topNeed, limitDependent };
    } finally {
      stopProbing();
      events.off("beforeMessage", onMessage);
      events.off("afterMessage", onMessageEnd);
    }
  }

  private enter(message: Message): void {
    if (this.frames.length === 0) {
      this.topGas = message.gasLimit;
      const hex = message.caller.toString();
      this.sender = { hex, word: BigInt(hex) };
    }
    const address = message.to?.toString();
    this.frames.push({ gas: message.gasLimit, address, checkpoints: [], gasReadAt: undefined });
  }

  private step(step: ProbedStep): void {
    const frame = this.frames[step.depth];
    if (!frame) return;
    const code = step.opcode.code;
    this.watchLimitReads(frame, step, code);
    if (code === GAS || code === BALANCE || code === SELFBALANCE) return;
    if (code === SSTORE) {
      frame.checkpoints.push({ kind: "store", gasLeft: step.gasLeft });
      return;
    }
    const top = step.stack.length - 1;
    const isCreate = code === CREATE || code === CREATE2;
    const sendsValue = (code === CALL || code === CALLCODE) && (step.stack[top - 2] ?? 0n) > 0n;
    frame.checkpoints.push({
      kind: "call",
      gasLeft: step.gasLeft,
      cost: step.opcode.dynamicFee ?? BigInt(step.opcode.fee),
      requested: isCreate ? UNBOUNDED : (step.stack[top] ?? 0n),
      stipend: sendsValue ? this.callStipend : 0n,
    });
  }

  /**
   * Marks the run {@link GasNeed.limitDependent} when a `GAS` answer goes anywhere but straight into
   * the call after it (solc and Vyper emit `GAS CALL` for "all the gas"; the instruction after a
   * `GAS` runs next, and a call is no jump target), or when the sender's balance is read or spent.
   */
  private watchLimitReads(frame: Frame, step: ProbedStep, code: number): void {
    const handedToCall = GAS_TAKING_CALLS.has(code) && frame.gasReadAt === step.pc - 1;
    if (frame.gasReadAt !== undefined && !handedToCall) this.limitDependent = true;
    frame.gasReadAt = code === GAS ? step.pc : undefined;
    const stack = step.stack;
    const top = stack.length - 1;
    if (code === BALANCE && stack[top] === this.sender?.word) this.limitDependent = true;
    if (frame.address !== this.sender?.hex) return;
    // The sender's own code (EIP-7702) reading or spending its balance.
    if (code === SELFBALANCE) this.limitDependent = true;
    const value =
      code === CREATE || code === CREATE2 ? stack[top] : VALUE_CALLS.has(code) ? stack[top - 2] : 0n;
    if ((value ?? 0n) > 0n) this.limitDependent = true;
  }

  private exit(result: EVMResult): void {
    const frame = this.frames.pop();
    if (!frame) return;
    // A `GAS` answer still unspent when its frame ended went somewhere other than a call.
    if (frame.gasReadAt !== undefined) this.limitDependent = true;
    const used = result.execResult.executionGasUsed;
    const need = this.needOf(frame, used);
    const parent = this.frames[this.frames.length - 1];
    if (!parent) {
      this.topNeed = need;
      return;
    }
    const call = parent.checkpoints[parent.checkpoints.length - 1];
    if (call?.kind !== "call" || call.child) return;
    const usedAll = result.execResult.exceptionError !== undefined && used >= frame.gas;
    call.child = { need, used, usedAll };
  }

  /**
   * The least gas `frame` needs, worked out backwards from its end: at each checkpoint, the gas
   * that must be left there for the rest of the frame to run as it did.
   */
  private needOf(frame: Frame, used: bigint): bigint {
    let position = frame.gas - used;
    let required = 0n;
    for (let i = frame.checkpoints.length - 1; i >= 0; i--) {
      const point = frame.checkpoints[i]!;
      if (point.kind === "store") {
        required = max(this.storeSentry + 1n, point.gasLeft - position + required);
        position = point.gasLeft;
        continue;
      }
      const child = point.child;
      // A call that entered no frame (too deep, or a value it could not pay) costs what it cost.
      if (!child) continue;
      const afterReturn = point.gasLeft - point.cost + point.stipend - child.used;
      const requiredAfter = afterReturn - position + required;
      if (child.usedAll) {
        required = point.cost + leastGasLeaving(requiredAfter, point.requested);
      } else {
        const handedOver = min(child.need - point.stipend, point.requested);
        const asRun = point.cost - point.stipend + child.used + requiredAfter;
        required = max(asRun, point.cost + leastGasHandingOver(handedOver));
      }
      position = point.gasLeft;
    }
    return frame.gas - position + required;
  }
}

/** The least gas `a` left to a caller for which EIP-150 hands over at least `n` (`a - a/64 >= n`). */
function leastGasHandingOver(n: bigint): bigint {
  if (n <= 0n) return 0n;
  // The answer is within a unit or two of n * 64/63: start below it and step up.
  let a = (n * 64n) / 63n - 2n;
  while (a - a / 64n < n) a++;
  return a;
}

/**
 * The least gas `a` left to a caller that still leaves it `rest` after a sub-call that uses all it
 * is handed: `min(requested, a - a/64)`.
 */
function leastGasLeaving(rest: bigint, requested: bigint): bigint {
  const keepingOne64th = rest * 64n;
  if (keepingOne64th - keepingOne64th / 64n <= requested) return keepingOne64th;
  return rest + requested;
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
