import { ExecutionTimeoutError, RequestCancelledError } from "../../errors/domain-errors.js";
import { wrapRunStep } from "./evm-internals.js";

/** How long a read-only run (`eth_call`, `eth_estimateGas`, `eth_createAccessList`) may take, and who may call it off. */
export interface RunLimit {
  /** `performance.now()` after which the run stops with "execution timeout". */
  readonly deadline: number;
  /** Aborted once the client that asked has gone: the run stops. */
  readonly signal?: AbortSignal | undefined;
  /** Another way to call the run off (a flag another thread sets); the run stops once it answers true. */
  readonly cancelled?: (() => boolean) | undefined;
}

/**
 * What may call a run off, asked only when a run starts: an answer from a cache never makes the
 * signal (for HTTP, an AbortController and a listener per request). A request's RpcContext is one.
 */
export interface CancelSource {
  readonly signal?: AbortSignal | undefined;
  /** The limit the run was handed over with (a worker thread's job): used as it is. */
  readonly limit?: RunLimit | undefined;
}

/** The limit of a run `caller` asked for: the one it carries, else `timeoutMs` from now under its signal. */
export function callerLimit(timeoutMs: number, caller?: CancelSource): RunLimit {
  return caller?.limit ?? runLimit(timeoutMs, caller?.signal);
}

/** A limit of `timeoutMs` from now, called off by `signal` or once `cancelled` answers true. */
export function runLimit(timeoutMs: number, signal?: AbortSignal, cancelled?: () => boolean): RunLimit {
  return { deadline: performance.now() + timeoutMs, signal, cancelled };
}

/** The time `limit` has left, in milliseconds (0 once it has passed). */
export function timeLeft(limit: RunLimit): number {
  return Math.max(0, limit.deadline - performance.now());
}

/** Throws {@link RequestCancelledError} once `limit` is called off, {@link ExecutionTimeoutError} once it has passed. */
export function checkRunLimit(limit: RunLimit): void {
  if (limit.signal?.aborted || limit.cancelled?.()) throw new RequestCancelledError();
  if (performance.now() > limit.deadline) throw new ExecutionTimeoutError();
}

/** The limits of the EVMs now running a limited run, by EVM. */
const limits = new WeakMap<object, RunLimit>();

/** Puts the runs of `evm` under `limit` (or under none), from its next interpreter steps on. */
export function limitEvm(evm: object, limit: RunLimit | undefined): void {
  if (limit) limits.set(evm, limit);
  else limits.delete(evm);
}

/** The limit the runs of `evm` are under, if any. */
export function evmLimit(evm: object): RunLimit | undefined {
  return limits.get(evm);
}

/** `limit` (or none) with its deadline brought forward to `deadline` when that is earlier. */
export function withDeadline(limit: RunLimit | undefined, deadline: number): RunLimit {
  if (!limit) return { deadline };
  return deadline < limit.deadline ? { ...limit, deadline } : limit;
}

/** Interpreter steps between two looks at the running EVM's limit. */
const STEPS_PER_CHECK = 1024;

let installed: Promise<void> | undefined;

/**
 * Makes the EVM interpreter look at its EVM's {@link RunLimit} every {@link STEPS_PER_CHECK} steps
 * and stop the run with the limit's error, so that a call looping until its gas runs out ends at
 * its deadline or when it is called off. A run does not yield to its thread's event loop, so only
 * another thread (the main thread, for calls on workers) can call a running run off; on its own
 * thread a signal stops runs still waiting for their turn. EVMs without a limit (block production)
 * run as before. The interpreter is internal to @ethereumjs/evm (see {@link interpreterPrototype}); if it
 * cannot be reached, this throws rather than leave calls unbounded.
 */
export function enforceRunLimits(): Promise<void> {
  installed ??= install();
  return installed;
}

interface Stepping {
  readonly _evm: object;
}

async function install(): Promise<void> {
  let steps = 0;
  await wrapRunStep<Stepping>(
    "bound eth_call run time",
    (runStep) =>
      function (this: Stepping, opcode: unknown): Promise<void> | undefined {
        if (++steps === STEPS_PER_CHECK) {
          steps = 0;
          const limit = limits.get(this._evm);
          if (limit) checkRunLimit(limit);
        }
        return runStep.call(this, opcode);
      },
  );
}
