import type { EVMInterface } from "@ethereumjs/evm";
import type { Account, Address } from "@ethereumjs/util";

/** What a step probe is told of a step, before its opcode runs: the fields of a step event it needs. */
export interface ProbedStep {
  /** The call depth of the frame (0: the transaction's). */
  readonly depth: number;
  readonly pc: number;
  /** Gas left before the opcode's cost is taken. */
  readonly gasLeft: bigint;
  readonly opcode: {
    readonly code: number;
    readonly name: string;
    /** The opcode's base fee. */
    readonly fee: number;
    /** Its whole cost in this step: the base fee and the dynamic part. */
    readonly dynamicFee: bigint;
  };
  /** The stack, bottom first (a copy). */
  readonly stack: bigint[];
  /**
   * The frame's memory before the opcode, and zeros as far as the opcode's gas charge has grown it
   * (a view: it holds only while the listener runs).
   */
  readonly memory: Uint8Array;
  /** The account whose code runs. */
  readonly address: Address;
  /** That account as the frame found it when it began (a step event's `account`). */
  readonly account: Account;
}

/** The interpreter as a probe sees it (internal to @ethereumjs/evm, see patches/). */
interface ProbedInterpreter {
  readonly _env: { readonly depth: number; readonly address: Address; readonly contract: Account };
  readonly _runState: {
    readonly programCounter: number;
    readonly gasLeft: bigint;
    readonly stack: { readonly _store: bigint[]; readonly _len: number };
    readonly memory: { readonly _store: Uint8Array };
    readonly memoryWordCount: bigint;
  };
}

/** What the patched interpreter calls, set on the EVM as `_stepProbe`. */
interface Probe {
  readonly opcodes: Uint8Array;
  see(
    interpreter: ProbedInterpreter,
    opcode: { readonly code: number; readonly name: string; readonly fee: number },
    gas: bigint,
  ): void;
}

type ProbedEvm = { _stepProbe?: Probe | undefined };

/**
 * Tells `listener` of each step of `evm` whose opcode is flagged in `opcodes` (256 entries, non-zero
 * to report), once its gas is known and before it runs, until the returned function is called. The
 * patched interpreter (patches/) calls it synchronously from the step itself: no step event is built
 * (a `step` listener costs a copy of the stack and the memory and an awaited emit per step, and
 * turns the step asynchronous), and the other steps run as if nothing listened. One probe per EVM.
 */
export function probeSteps(
  evm: EVMInterface,
  opcodes: Uint8Array,
  listener: (step: ProbedStep) => void,
): () => void {
  const probed = evm as unknown as ProbedEvm;
  if (probed._stepProbe !== undefined) throw new Error("the EVM already has a step probe");
  const probe: Probe = {
    opcodes,
    see: (interpreter, { code, name, fee }, gas) => {
      const { programCounter, gasLeft, stack, memory, memoryWordCount } = interpreter._runState;
      const { depth, address, contract } = interpreter._env;
      listener({
        depth,
        pc: programCounter,
        gasLeft,
        opcode: { code, name, fee, dynamicFee: gas },
        stack: stack._store.slice(0, stack._len),
        memory: memory._store.subarray(0, Number(memoryWordCount) * 32),
        address,
        account: contract,
      });
    },
  };
  probed._stepProbe = probe;
  return () => {
    if (probed._stepProbe === probe) probed._stepProbe = undefined;
  };
}
