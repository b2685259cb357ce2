import type { Block } from "@ethereumjs/block";
import { createTxFromRLP, type TypedTransaction } from "@ethereumjs/tx";
import type { CallRequest, SimulateOptions, StateOverrides, TraceOptions } from "@strata/protocol";
import { ExecutionError, NotFoundError } from "../../errors/domain-errors.js";
import { formatPendingBlock, type PendingTask, readState } from "../../producer/pending-block.js";
import type { PendingBuilds } from "../../producer/pending-builds.js";
import type { PendingContext } from "../../producer/pending-execution.js";
import { payloadEnvelope } from "../../rpc/format/payload.js";
import { formatSimulatedBlock } from "../../rpc/format/simulated-block.js";
import { buildPayload, type PayloadAttributes } from "../block/payload-builder.js";
import type { CallExecutor } from "../call/call-executor.js";
import type { ChainView } from "../evm/chain-view.js";
import type { RunLimit } from "../evm/run-limits.js";
import type { Simulator } from "../simulate/simulator.js";
import type { TraceSource, TracingService } from "../tracing/tracing-service.js";

/**
 * One piece of heavy execution besides a plain `eth_call`: everything in it can be posted to a
 * worker thread (blocks by hash, transactions as raw bytes), and its result is plain JSON-RPC
 * output (or a bigint), so it can be posted back. Answers that may run to megabytes (traces,
 * simulations, built payloads: {@link ANSWERED_AS_JSON}) come as that output's JSON text: the
 * thread answering requests then neither copies an object tree nor serialises it.
 */
export type HeavyTask =
  | {
      readonly kind: "estimateGas" | "createAccessList";
      readonly request: CallRequest;
      readonly blockHash: Uint8Array;
      /** Set when the block is the pending block: the worker makes it from this. */
      readonly pending?: PendingContext;
    }
  | PendingTask
  | { readonly kind: "traceTransaction"; readonly hash: Uint8Array; readonly options: TraceOptions }
  /** The callTracer's call tree of a mined transaction, as an object (for Otterscan's views of it). */
  | { readonly kind: "callTree"; readonly hash: Uint8Array }
  | {
      readonly kind: "traceCall";
      readonly request: CallRequest;
      readonly blockHash: Uint8Array;
      readonly options: TraceOptions;
      readonly overrides: StateOverrides | undefined;
    }
  | { readonly kind: "traceBlock"; readonly blockHash: Uint8Array; readonly options: TraceOptions }
  | { readonly kind: "findCreation"; readonly blockHash: Uint8Array; readonly address: string }
  | { readonly kind: "simulate"; readonly options: SimulateOptions; readonly blockHash: Uint8Array }
  | {
      readonly kind: "buildBlock";
      readonly parentHash: Uint8Array;
      readonly attributes: PayloadAttributes;
      /** Raw transactions: all `given` are included (in order), `candidates` while they fit and apply. */
      readonly transactions:
        | { readonly given: readonly Uint8Array[] }
        | { readonly candidates: readonly Uint8Array[] };
      readonly extraData: Uint8Array;
    };

/** The kinds of {@link HeavyTask} whose result is JSON text. */
const ANSWERED_AS_JSON = ["traceTransaction", "traceCall", "traceBlock", "simulate", "buildBlock"] as const;

/** What running heavy tasks needs; a worker thread builds its own over its store. */
export interface HeavyTaskDeps {
  readonly source: TraceSource;
  readonly chainView: ChainView;
  readonly calls: CallExecutor;
  readonly tracing: TracingService;
  /** `eth_simulateV1`, built once per thread. */
  readonly simulator: Simulator;
  /** The pending block made from a posted context (execution workers only). */
  readonly pending?: PendingBuilds;
}

/**
 * Runs {@link HeavyTask}s against the stored chain, each under the {@link RunLimit} it is given
 * (checked inside the interpreter), and formats their results as their JSON-RPC methods answer.
 */
export class HeavyTaskRunner {
  constructor(private readonly deps: HeavyTaskDeps) {}

  /** Runs `task` within `limit`; its JSON-RPC result (as JSON text for {@link ANSWERED_AS_JSON}). */
  async run(task: HeavyTask, limit: RunLimit): Promise<unknown> {
    const result = await this.result(task, limit);
    if (!(ANSWERED_AS_JSON as readonly string[]).includes(task.kind)) return result;
    return result === undefined ? "null" : JSON.stringify(result);
  }

  private async result(task: HeavyTask, limit: RunLimit): Promise<unknown> {
    const { deps } = this;
    switch (task.kind) {
      case "estimateGas":
        return deps.calls.estimateGas(task.request, await this.callBlock(task), { limit });
      case "createAccessList":
        return deps.calls.createAccessList(task.request, await this.callBlock(task), { limit });
      case "pendingRead":
        return readState((await this.pendingBuilds().built(task.pending)).state, task.read);
      case "pendingBlock":
        return formatPendingBlock(await this.pendingBuilds().built(task.pending), task.full);
      case "traceTransaction":
        return deps.tracing.traceTransaction(task.hash, task.options, limit);
      case "callTree":
        return deps.tracing.traceTransaction(task.hash, { tracer: "callTracer" }, limit);
      case "traceCall":
        return deps.tracing.traceCall(
          task.request,
          this.block(task.blockHash),
          task.options,
          task.overrides,
          limit,
        );
      case "traceBlock":
        return deps.tracing.traceBlock(this.block(task.blockHash), task.options, limit);
      case "findCreation":
        return deps.tracing.findCreation(this.block(task.blockHash), task.address, limit);
      case "simulate": {
        const blocks = await deps.simulator.simulate(task.options, this.block(task.blockHash), limit);
        const full = task.options.returnFullTransactions === true;
        return blocks.map((simulated) => formatSimulatedBlock(simulated, full));
      }
      case "buildBlock":
        return this.buildBlock(task, limit);
    }
  }

  private async buildBlock(
    task: Extract<HeavyTask, { kind: "buildBlock" }>,
    limit: RunLimit,
  ): Promise<unknown> {
    const { deps } = this;
    const parent = this.block(task.parentHash);
    const { transactions } = task;
    const built = await buildPayload(
      {
        common: deps.source.common,
        chainView: deps.chainView,
        stateAt: (block) => deps.source.stateAt(block),
        limit,
      },
      parent,
      task.attributes,
      "given" in transactions
        ? { given: transactions.given.map((raw, i) => decodeTransaction(raw, i, parent)) }
        : { candidates: transactions.candidates.map((raw, i) => decodeTransaction(raw, i, parent)) },
      task.extraData,
    );
    return payloadEnvelope(built);
  }

  /** The block an estimate or access list runs in: the pending block made from its context, or a stored one. */
  private callBlock(task: {
    readonly blockHash: Uint8Array;
    readonly pending?: PendingContext;
  }): Promise<Block> {
    if (task.pending) return this.pendingBuilds().callBlock(task.pending);
    return Promise.resolve(this.block(task.blockHash));
  }

  private pendingBuilds(): PendingBuilds {
    if (!this.deps.pending) throw new ExecutionError("the pending block is made on execution workers only");
    return this.deps.pending;
  }

  private block(hash: Uint8Array): Block {
    const block = this.deps.source.blockByHash(hash);
    if (!block) throw new NotFoundError("header not found");
    return block;
  }
}

function decodeTransaction(raw: Uint8Array, index: number, block: Block): TypedTransaction {
  try {
    return createTxFromRLP(raw, { common: block.common });
  } catch (error) {
    throw new ExecutionError(`invalid transaction ${index}: ${(error as Error).message}`);
  }
}
