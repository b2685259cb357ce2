import type { Block } from "@ethereumjs/block";
import { createTxFromRLP, type TypedTransaction } from "@ethereumjs/tx";
import type { CallRequest } from "@strata/protocol";
import { ExecutionError, NotFoundError } from "../errors/domain-errors.js";
import { payloadEnvelope } from "../rpc/format/payload.js";
import { formatSimulatedBlock } from "../rpc/format/simulated-block.js";
import type { CallExecutor } from "./call-executor.js";
import type { ChainView } from "./chain-view.js";
import type { RunLimit } from "./run-limits.js";
import type { SimulateOptions, StateOverrides } from "./simulate/params.js";
import { buildPayload, type PayloadAttributes } from "./simulate/payload-builder.js";
import { Simulator } from "./simulate/simulator.js";
import type { TraceOptions } from "./tracing/trace-options.js";
import type { TraceSource, TracingService } from "./tracing/tracing-service.js";

/**
 * One piece of heavy execution besides a plain `eth_call`: everything in it can be posted to a
 * worker thread (blocks by hash, transactions as raw bytes), and its result is plain JSON-RPC
 * output (or a bigint), so it can be posted back.
 */
export type HeavyTask =
  | { readonly kind: "estimateGas"; readonly request: CallRequest; readonly blockHash: Uint8Array }
  | { readonly kind: "createAccessList"; readonly request: CallRequest; readonly blockHash: Uint8Array }
  | { readonly kind: "traceTransaction"; readonly hash: Uint8Array; readonly options: TraceOptions }
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

/** What running heavy tasks needs; a worker thread builds its own over its store. */
export interface HeavyTaskDeps {
  readonly source: TraceSource;
  readonly chainView: ChainView;
  readonly calls: CallExecutor;
  readonly tracing: TracingService;
  readonly gasCap: bigint;
  /** The time budget of a simulation or a block build. */
  readonly evmTimeoutMs: number;
}

/**
 * Runs {@link HeavyTask}s against the stored chain, each under the {@link RunLimit} it is given
 * (checked inside the interpreter), and formats their results as their JSON-RPC methods answer.
 */
export class HeavyTaskRunner {
  constructor(private readonly deps: HeavyTaskDeps) {}

  /** Runs `task` within `limit`; its JSON-RPC result. */
  async run(task: HeavyTask, limit: RunLimit): Promise<unknown> {
    const { deps } = this;
    switch (task.kind) {
      case "estimateGas":
        return deps.calls.estimateGas(task.request, this.block(task.blockHash), { limit });
      case "createAccessList":
        return deps.calls.createAccessList(task.request, this.block(task.blockHash), { limit });
      case "traceTransaction":
        return deps.tracing.traceTransaction(task.hash, task.options, limit);
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
        const simulator = new Simulator({
          common: deps.source.common,
          chainView: deps.chainView,
          stateAt: (block) => deps.source.stateAt(block),
          gasCap: deps.gasCap,
          timeoutMs: deps.evmTimeoutMs,
          limit,
        });
        const blocks = await simulator.simulate(task.options, this.block(task.blockHash));
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
