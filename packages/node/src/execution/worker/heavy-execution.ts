import type { Block } from "@ethereumjs/block";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { CallRequest, SimulateOptions, StateOverrides, TraceOptions } from "@strata/protocol";
import { BusyError } from "../../errors/domain-errors.js";
import type { PayloadAttributes } from "../block/payload-builder.js";
import { type CancelSource, checkRunLimit, runLimit } from "../evm/run-limits.js";
import type { CallFrame } from "../tracing/call-tracer.js";
import type { RecordedCallTraces } from "../tracing/recorded-call-traces.js";
import type { BlockTraceEntry, ContractCreation } from "../tracing/tracing-service.js";
import type { CallWorkerPool } from "./call-worker-pool.js";
import type { HeavyTask, HeavyTaskRunner } from "./heavy-tasks.js";

/** The time budgets of heavy execution and the longest wait for the queue. */
export interface HeavyExecutionLimits {
  /** The node's maximum trace time (a client's `timeout` is capped at it). */
  readonly traceTimeoutMs: number;
  /** The time budget of a simulation or a block build. */
  readonly evmTimeoutMs: number;
  readonly maxQueueWaitMs: number;
}

/**
 * Where tracing (`debug_trace*`, `ots_*`), `eth_simulateV1` and `testing_buildBlockV1` run: on the
 * execution worker threads, in the queue `eth_call` uses (a job that waits longer than the queue
 * limit is refused with -32005), so the thread answering requests never runs EVM code. Every job
 * is bounded by a deadline the interpreter checks, and called off when its client disconnects.
 * Without workers (an in-memory chain, which workers cannot read: tests) or once every worker has
 * failed, jobs run here, one at a time, under the same limits.
 */
export class HeavyExecution {
  private lock: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly workers: CallWorkerPool | undefined,
    private readonly local: HeavyTaskRunner,
    private readonly limits: HeavyExecutionLimits,
    private readonly recorded?: RecordedCallTraces,
  ) {}

  /** geth's `debug_traceTransaction`, as JSON text: recorded while mining when it was, else replayed. */
  traceTransaction(hash: Uint8Array, options: TraceOptions, caller?: CancelSource): Promise<string> {
    const recorded = this.recorded?.answer(hash, options);
    if (recorded !== undefined) return Promise.resolve(recorded);
    return this.trace({ kind: "traceTransaction", hash, options }, caller) as Promise<string>;
  }

  /** The callTracer's call tree of the mined transaction `hash`. */
  callTree(hash: Uint8Array, caller?: CancelSource): Promise<CallFrame> {
    return this.trace({ kind: "callTree", hash }, caller) as Promise<CallFrame>;
  }

  /** geth's `debug_traceCall` on the state after `block`, as JSON text. */
  traceCall(
    request: CallRequest,
    block: Block,
    options: TraceOptions,
    overrides: StateOverrides | undefined,
    caller?: CancelSource,
  ): Promise<string> {
    return this.trace(
      { kind: "traceCall", request, blockHash: block.hash(), options, overrides },
      caller,
    ) as Promise<string>;
  }

  /** geth's `debug_traceBlockByNumber/ByHash`: the {@link BlockTraceEntry} list as JSON text. */
  traceBlock(block: Block, options: TraceOptions, caller?: CancelSource): Promise<string> {
    return this.trace({ kind: "traceBlock", blockHash: block.hash(), options }, caller) as Promise<string>;
  }

  /** The transaction of `block` that creates `address` (one replay of the block, stopping at it). */
  findCreation(block: Block, address: string, caller?: CancelSource): Promise<ContractCreation | null> {
    return this.trace(
      { kind: "findCreation", blockHash: block.hash(), address },
      caller,
    ) as Promise<ContractCreation | null>;
  }

  /** `eth_simulateV1` on top of `base`: the simulated blocks as JSON-RPC answers them, as JSON text. */
  simulate(options: SimulateOptions, base: Block, caller?: CancelSource): Promise<string> {
    return this.run(
      { kind: "simulate", options, blockHash: base.hash() },
      this.limits.evmTimeoutMs,
      caller,
    ) as Promise<string>;
  }

  /** `testing_buildBlockV1` after `parent`: the payload envelope as JSON-RPC answers it, as JSON text. */
  buildBlock(
    parent: Block,
    attributes: PayloadAttributes,
    transactions: { given: readonly Uint8Array[] } | { candidates: readonly TypedTransaction[] },
    extraData: Uint8Array,
    caller?: CancelSource,
  ): Promise<string> {
    const raw =
      "given" in transactions
        ? transactions
        : { candidates: transactions.candidates.map((tx) => tx.serialize()) };
    return this.run(
      { kind: "buildBlock", parentHash: parent.hash(), attributes, transactions: raw, extraData },
      this.limits.evmTimeoutMs,
      caller,
    ) as Promise<string>;
  }

  private trace(task: HeavyTask, caller: CancelSource | undefined): Promise<unknown> {
    return this.run(task, this.limits.traceTimeoutMs, caller);
  }

  private async run(task: HeavyTask, timeoutMs: number, caller: CancelSource | undefined): Promise<unknown> {
    const limit = runLimit(timeoutMs, caller?.signal);
    if (this.workers?.hasWorkers()) {
      const value = await this.workers.run(task, limit);
      if (value !== undefined) return value;
    }
    return this.inTurn(
      () => this.local.run(task, limit),
      () => checkRunLimit(limit),
    );
  }

  /** Runs `work` here once the jobs before it are done; refused when it waited beyond the queue limit. */
  private inTurn<T>(work: () => Promise<T>, check: () => void): Promise<T> {
    const enqueuedAt = performance.now();
    const { maxQueueWaitMs } = this.limits;
    const job = this.lock.then(() => {
      const waited = performance.now() - enqueuedAt;
      if (waited > maxQueueWaitMs) {
        throw new BusyError(`execution queue wait exceeded ${maxQueueWaitMs} ms`, Math.ceil(waited));
      }
      check();
      return work();
    });
    this.lock = job.catch(() => {});
    return job;
  }
}
