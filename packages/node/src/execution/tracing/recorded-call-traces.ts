import type { TypedTransaction } from "@ethereumjs/tx";
import { bytesToHex } from "@ethereumjs/util";
import type { TraceOptions } from "@strata/protocol";
import { LRUCache } from "lru-cache";
import type { BoundedStructure } from "../../metrics/bounded-structure.js";
import type { ChainStore } from "../../storage/chain-store.js";
import type { TransactionRunner } from "../block/block-executor.js";
import { CallTracer } from "./call-tracer.js";
import { runWatched } from "./evm-hooks.js";

/** Recorded traces kept, the newest first out of reach last. */
const KEPT_TRACES = 1024;
/** Bytes of JSON text kept in all. */
const KEPT_BYTES = 16 * 1024 * 1024;
/** A trace longer than this (a contract creation of large code) is not kept: its replay serves it. */
const MAX_TRACE_BYTES = 256 * 1024;

interface Recorded {
  readonly blockHash: string;
  readonly json: string;
}

/** The call traces one block build recorded, by the transaction's position in the block. */
export interface BlockRecording {
  /** Runs each candidate of the block, recording its call trace. */
  readonly run: TransactionRunner;
  /** Keeps what was recorded once the block is committed as `blockHash`. */
  keep(blockHash: Uint8Array): void;
}

/**
 * Call traces recorded while a dev chain mines its blocks, as anvil records them: the block
 * producer runs each transaction that carries input or creates a contract with a `callTracer`
 * watching (which can neither stop nor change the run), and `debug_traceTransaction` with the
 * default `callTracer` answers from here instead of replaying the block. A trace is served only
 * while its transaction is still found in the block it was recorded in (`evm_revert`, a
 * reorganisation).
 */
export class RecordedCallTraces {
  private readonly traces = new LRUCache<string, Recorded>({
    max: KEPT_TRACES,
    maxSize: KEPT_BYTES,
    sizeCalculation: (recorded) => recorded.json.length,
  });

  constructor(private readonly store: ChainStore) {}

  /** A recording for one block build. */
  recordBlock(): BlockRecording {
    const recorded: { readonly tx: TypedTransaction; readonly json: string | undefined }[] = [];
    return {
      run: async (vm, tx, { coinbase, logIndexBase }, add) => {
        if (tx.to && tx.data.length === 0) {
          // A plain transfer takes the EVM's fast path, which a watcher would close.
          const result = await add();
          recorded.push({ tx, json: undefined });
          return result;
        }
        const tracer = new CallTracer();
        const sender = tx.getSenderAddress();
        const { result, traced } = await runWatched(vm, tracer, { tx, sender, coinbase, logIndexBase }, add);
        const json = traced ? JSON.stringify(tracer.result()) : undefined;
        recorded.push({ tx, json: json && json.length <= MAX_TRACE_BYTES ? json : undefined });
        return result;
      },
      keep: (blockHash) => {
        const block = bytesToHex(blockHash);
        for (const { tx, json } of recorded) {
          if (json) this.traces.set(bytesToHex(tx.hash()), { blockHash: block, json });
        }
      },
    };
  }

  /**
   * The recorded answer to `debug_traceTransaction(hash, options)`, as JSON text: only for the
   * default `callTracer` (no `onlyTopCall`, no `withLog`), and while the transaction is still where
   * it was recorded.
   */
  answer(hash: Uint8Array, options: TraceOptions): string | undefined {
    if (options.tracer !== "callTracer") return undefined;
    const config = options.tracerConfig ?? {};
    if (Object.values(config).some((value) => value)) return undefined;
    const recorded = this.traces.get(bytesToHex(hash));
    if (!recorded) return undefined;
    const location = this.store.txLocation(hash);
    return location && bytesToHex(location.blockHash) === recorded.blockHash ? recorded.json : undefined;
  }

  /** The kept traces, for the metrics. */
  boundedStructures(): BoundedStructure[] {
    return [
      { name: "recorded_call_traces", unit: "entries", bound: KEPT_TRACES, size: () => this.traces.size },
      {
        name: "recorded_call_traces_bytes",
        unit: "bytes",
        bound: KEPT_BYTES,
        size: () => this.traces.calculatedSize,
      },
    ];
  }
}
