import type { EVMInterface, InterpreterStep } from "@ethereumjs/evm";
import { wrapRunStep } from "./evm-internals.js";

/** A `step` listener as @ethereumjs/evm calls it: with a `resolve` when it takes two arguments. */
export type StepListener = (step: InterpreterStep, resolve?: (result?: unknown) => void) => void;

type EventsLike = NonNullable<EVMInterface["events"]>;

interface Stepping {
  readonly _evm: object;
  readonly _runState: { readonly opCode: number };
}

/** What an EVM under selective stepping listens with, and before which opcodes. */
interface Selection {
  readonly opcodes: Uint8Array;
  readonly listener: StepListener;
  readonly events: EventsLike;
}

const selections = new WeakMap<object, Selection>();
/** EVMs under selective stepping on this thread: while none is, steps pay one comparison. */
let selecting = 0;
/**
 * The EVM whose selection the last step looked up, and that selection (undefined: none): every
 * step of a run is of one EVM, so a step looks in {@link selections} only when the EVM changes.
 */
let lastEvm: object | undefined;
let lastSelection: Selection | undefined;
let installed: Promise<void> | undefined;

/**
 * Attaches `listener` to `evm`'s `step` event for the opcodes flagged in `opcodes` (256 entries,
 * non-zero for an opcode to report) only, until the returned function is called. @ethereumjs/evm
 * builds a step event (copies of the stack and memory, an awaited emit) before every opcode while
 * any `step` listener is attached: a tracer that only needs call, log and halting opcodes pays for
 * those alone this way. Each reported step carries exactly what the full event would.
 */
export async function selectSteps(
  evm: EVMInterface,
  opcodes: Uint8Array,
  listener: StepListener,
): Promise<() => void> {
  installed ??= install();
  await installed;
  const events = evm.events;
  if (!events) throw new Error("the EVM has no event emitter");
  selections.set(evm, { opcodes, listener, events });
  lastEvm = undefined;
  selecting++;
  return () => {
    lastEvm = undefined;
    if (selections.delete(evm)) selecting--;
  };
}

async function install(): Promise<void> {
  await wrapRunStep<Stepping>(
    "trace selectively",
    (runStep) =>
      function (this: Stepping, opcode: unknown): Promise<void> | undefined {
        if (selecting === 0) return runStep.call(this, opcode);
        if (this._evm !== lastEvm) {
          lastEvm = this._evm;
          lastSelection = selections.get(lastEvm);
        }
        const selection = lastSelection;
        if (!selection || selection.opcodes[this._runState.opCode] === 0) return runStep.call(this, opcode);
        // Listening only until this opcode's event: a call's sub-frames run inside its step.
        const { events, listener } = selection;
        const once: StepListener = (step, resolve) => {
          events.off("step", once);
          // The EVM awaits `once` (two arguments): a one-argument listener is done when it returns.
          if (listener.length === 2) listener(step, resolve);
          else {
            listener(step);
            resolve?.();
          }
        };
        events.on("step", once);
        // With a listener attached the step runs as a promise; should it not, it is over already.
        const stepping = runStep.call(this, opcode);
        if (!stepping) {
          events.off("step", once);
          return undefined;
        }
        return stepping.finally(() => events.off("step", once));
      },
  );
}
