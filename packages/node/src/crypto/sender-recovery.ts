import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";

/** One signature to recover: the signed message hash, `r` and `s` (32 bytes each) and the recovery id. */
export interface SignatureToRecover {
  readonly hash: Uint8Array;
  readonly r: Uint8Array;
  readonly s: Uint8Array;
  readonly recovery: number;
}

/** Bytes of one request in a batch: hash, r, s, recovery id. */
const REQUEST_BYTES = 32 + 64 + 1;
/** Bytes of one answer in a batch: a validity flag, then the 64-byte public key. */
const ANSWER_BYTES = 1 + 64;
/** Signatures sent to a worker in one message, at most. */
const MAX_BATCH = 512;
/** A signature asked for within this many milliseconds of the one before belongs to a stream. */
const STREAM_GAP_MS = 5;

/** Where the worker finds the native bindings (resolved from this package, handed over as data). */
interface WorkerPaths {
  readonly secp256k1: string;
}

/**
 * The worker's program: native libsecp256k1 recovery, one batch per message; each answer is a flag
 * byte and the 64-byte public key. It runs as an evaluated script (so it works from sources and from
 * the build alike) and uses nothing from this module's scope. It loads no other native module: the
 * `keccak` binding aborts the process when a worker holding it is torn down at exit.
 */
function workerProgram(): void {
  const { parentPort, workerData } = require("node:worker_threads") as typeof import("node:worker_threads");
  const secp = require((workerData as WorkerPaths).secp256k1) as {
    ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
  };
  parentPort!.on("message", (message: { id: number; data: Uint8Array }) => {
    const { id, data } = message;
    const count = data.length / 97;
    const out = new Uint8Array(count * 65);
    for (let i = 0; i < count; i++) {
      const at = i * 97;
      try {
        const publicKey = secp.ecdsaRecover(
          data.subarray(at + 32, at + 96),
          data[at + 96]!,
          data.subarray(at, at + 32),
          false,
        );
        out[i * 65] = 1;
        out.set(publicKey.subarray(1), i * 65 + 1);
      } catch {
        out[i * 65] = 0;
      }
    }
    parentPort!.postMessage({ id, out }, [out.buffer]);
  });
}

let sharedPool: { readonly pool: SenderRecovery | undefined } | undefined;

interface Pending {
  readonly signature: SignatureToRecover;
  readonly resolve: (publicKey: Uint8Array | undefined) => void;
  readonly reject: (error: Error) => void;
}

/** How a {@link SenderRecovery} pool may be used. */
export interface SenderRecoveryOptions {
  /**
   * Whether a lone signature (nothing queued or in flight, none asked for just before) may be
   * recovered on the caller's thread ({@link SenderRecovery.claimInline}). Default true.
   */
  readonly inlineWhenIdle?: boolean;
}

/**
 * Transaction sender recovery on worker threads. Signatures submitted during one turn of the event
 * loop go to a worker as one message, so the JSON-RPC thread spends a few microseconds per
 * transaction instead of the ~100 µs of an elliptic-curve recovery, and recoveries of concurrent
 * submissions run on the other cores. A lone transaction reaching an idle pool is better recovered
 * where it arrived (a native recovery takes less than the half millisecond a round trip to a worker
 * does): {@link claimInline} says when.
 */
export class SenderRecovery {
  private queue: Pending[] = [];
  private flushScheduled = false;
  /** When a signature was last asked for (`performance.now()`), on either path. */
  private lastAskedAt = Number.NEGATIVE_INFINITY;
  private readonly inFlight = new Map<number, { readonly batch: Pending[]; readonly worker: Worker }>();
  /** Batches each worker is working on; a worker holds the process open only while it has some. */
  private readonly busy = new Map<Worker, number>();
  private nextId = 0;
  private nextWorker = 0;
  private closed = false;

  private constructor(
    private readonly workers: Worker[],
    private readonly inlineWhenIdle: boolean,
  ) {
    for (const worker of workers) {
      worker.on("message", (message: { id: number; out: Uint8Array }) => this.settle(message));
      // A worker that fails leaves the pool unavailable: callers go back to recovering in-thread.
      worker.on("error", (error) => {
        this.closed = true;
        this.failAll(error);
      });
      // After the listeners, which would otherwise hold the process open: an idle worker never does.
      worker.unref();
    }
  }

  /**
   * The process's shared pool, started on first use with the default number of threads: every node
   * of a process uses it, and it is never closed (see {@link SenderRecovery.close}).
   */
  static shared(): SenderRecovery | undefined {
    sharedPool ??= { pool: SenderRecovery.start() };
    return sharedPool.pool;
  }

  /**
   * Starts `threads` workers (default: one per core beyond the first, at least one, at most four).
   * Returns undefined when the native binding cannot be found, so callers recover in-thread.
   */
  static start(
    threads = Math.min(4, Math.max(1, availableParallelism() - 1)),
    options: SenderRecoveryOptions = {},
  ): SenderRecovery | undefined {
    let paths: WorkerPaths;
    try {
      const require = createRequire(import.meta.url);
      paths = { secp256k1: require.resolve("secp256k1/bindings.js") };
    } catch {
      return undefined;
    }
    const source = `(${workerProgram.toString()})()`;
    const workers = Array.from(
      { length: threads },
      // No inherited loaders or flags: the program is plain CommonJS.
      () => new Worker(source, { eval: true, workerData: paths, name: "sender-recovery", execArgv: [] }),
    );
    return new SenderRecovery(workers, options.inlineWhenIdle ?? true);
  }

  /** False once closed or after a worker failed. */
  get available(): boolean {
    return !this.closed;
  }

  /** Batches of signatures handed to the workers so far. */
  get batches(): number {
    return this.nextId;
  }

  /**
   * Whether the caller should recover its one signature itself: true for a transaction arriving
   * alone (nothing queued or in flight, and none asked for in the last {@link STREAM_GAP_MS}), false
   * under a stream, whose signatures go to the workers in batches (and whose transactions then
   * reach the pool, and blocks, together).
   */
  claimInline(): boolean {
    const now = performance.now();
    const alone = now - this.lastAskedAt >= STREAM_GAP_MS;
    this.lastAskedAt = now;
    return this.inlineWhenIdle && alone && this.queue.length === 0 && this.inFlight.size === 0;
  }

  /** The signer's 64-byte public key, or undefined when the signature recovers no key. */
  recover(signature: SignatureToRecover): Promise<Uint8Array | undefined> {
    if (this.closed) return Promise.reject(new Error("sender recovery is closed"));
    this.lastAskedAt = performance.now();
    return new Promise((resolve, reject) => {
      this.queue.push({ signature, resolve, reject });
      if (this.queue.length >= MAX_BATCH) this.flush();
      else if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Stops taking work; recoveries still queued or running fail. The threads are left idle and
   * unreferenced, ending with the process: terminating a thread that has loaded the native binding
   * can abort the whole process (the binding throws while its environment is torn down).
   */
  close(): void {
    this.closed = true;
    this.failAll(new Error("sender recovery is closed"));
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    const data = new Uint8Array(batch.length * REQUEST_BYTES);
    batch.forEach(({ signature }, i) => {
      const at = i * REQUEST_BYTES;
      data.set(signature.hash, at);
      data.set(signature.r, at + 32);
      data.set(signature.s, at + 64);
      data[at + 96] = signature.recovery;
    });
    const id = this.nextId++;
    const worker = this.workers[this.nextWorker++ % this.workers.length]!;
    this.inFlight.set(id, { batch, worker });
    this.setBusy(worker, 1);
    worker.postMessage({ id, data }, [data.buffer]);
  }

  private settle({ id, out }: { id: number; out: Uint8Array }): void {
    const entry = this.inFlight.get(id);
    if (!entry) return;
    this.inFlight.delete(id);
    this.setBusy(entry.worker, -1);
    entry.batch.forEach(({ resolve }, i) => {
      const at = i * ANSWER_BYTES;
      resolve(out[at] === 1 ? out.slice(at + 1, at + ANSWER_BYTES) : undefined);
    });
  }

  /** Counts a batch given to (+1) or answered by (-1) `worker`, which is referenced while it has any. */
  private setBusy(worker: Worker, change: 1 | -1): void {
    const batches = (this.busy.get(worker) ?? 0) + change;
    this.busy.set(worker, batches);
    if (batches === 1 && change === 1) worker.ref();
    if (batches === 0) worker.unref();
  }

  private failAll(error: Error): void {
    for (const { batch, worker } of this.inFlight.values()) {
      this.setBusy(worker, -1);
      for (const { reject } of batch) reject(error);
    }
    this.inFlight.clear();
    for (const { reject } of this.queue) reject(error);
    this.queue = [];
  }
}
