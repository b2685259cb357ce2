import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** One digest to sign: the 32-byte message hash and the 32-byte private key. */
export interface DigestToSign {
  readonly hash: Uint8Array;
  readonly privateKey: Uint8Array;
}

/** Bytes of one request: hash, key. */
const REQUEST_BYTES = 32 + 32;
/** Bytes of one answer: r ‖ s ‖ recovery id. */
const ANSWER_BYTES = 65;

/** Where the thread finds the native binding (resolved from this package, handed over as data). */
interface ThreadPaths {
  readonly secp256k1: string;
}

/**
 * The thread's program: native libsecp256k1 signing (deterministic RFC 6979 nonces), one batch per
 * message; an answer holds r ‖ s ‖ recovery id per digest, or an error message when a key is
 * invalid. It runs as an evaluated script and uses nothing from this module's scope, and it loads
 * no other native module (see sender-recovery.ts).
 */
function threadProgram(): void {
  const { parentPort, workerData } = require("node:worker_threads") as typeof import("node:worker_threads");
  const secp = require((workerData as ThreadPaths).secp256k1) as {
    ecdsaSign(msg32: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
  };
  parentPort!.on("message", (message: { id: number; data: Uint8Array }) => {
    const { id, data } = message;
    const count = data.length / 64;
    const out = new Uint8Array(count * 65);
    try {
      for (let i = 0; i < count; i++) {
        const at = i * 64;
        const { signature, recid } = secp.ecdsaSign(
          data.subarray(at, at + 32),
          data.subarray(at + 32, at + 64),
        );
        out.set(signature, i * 65);
        out[i * 65 + 64] = recid;
      }
    } catch (error) {
      parentPort!.postMessage({ id, error: String(error) });
      return;
    }
    parentPort!.postMessage({ id, out }, [out.buffer]);
  });
}

let shared: { readonly thread: SigningThread | undefined } | undefined;

interface Waiting {
  readonly resolve: (signatures: Uint8Array[]) => void;
  readonly reject: (error: Error) => void;
}

/**
 * secp256k1 signing on a thread of its own, for the signatures a validator makes on every block
 * (its local validators' finality votes, about 50 µs each): the main thread hands a batch over and
 * goes on with the block it is building meanwhile. Signatures are those of libsecp256k1 on the main
 * thread, byte for byte (RFC 6979 nonces).
 */
export class SigningThread {
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;
  private closed = false;

  private constructor(private readonly worker: Worker) {
    worker.on("message", (message: { id: number; out?: Uint8Array; error?: string }) => this.settle(message));
    worker.on("error", (error) => this.fail(error));
    // After the listeners: an idle thread never holds the process open (see {@link close}).
    worker.unref();
  }

  /** The process's shared thread, started on first use; never closed. Undefined without the native binding. */
  static shared(): SigningThread | undefined {
    shared ??= { thread: SigningThread.start() };
    return shared.thread;
  }

  /** Starts a thread; undefined when the native binding cannot be found (callers then sign in-thread). */
  static start(): SigningThread | undefined {
    let paths: ThreadPaths;
    try {
      paths = { secp256k1: createRequire(import.meta.url).resolve("secp256k1/bindings.js") };
    } catch {
      return undefined;
    }
    const source = `(${threadProgram.toString()})()`;
    return new SigningThread(
      new Worker(source, { eval: true, workerData: paths, name: "signing", execArgv: [] }),
    );
  }

  /** False once closed or after the thread failed. */
  get available(): boolean {
    return !this.closed;
  }

  /** Batches handed to the thread so far. */
  get batches(): number {
    return this.nextId;
  }

  /** Signs each digest with its key: r ‖ s ‖ recovery id (65 bytes) each, in order. */
  sign(digests: readonly DigestToSign[]): Promise<Uint8Array[]> {
    if (this.closed) return Promise.reject(new Error("the signing thread is closed"));
    if (digests.length === 0) return Promise.resolve([]);
    const data = new Uint8Array(digests.length * REQUEST_BYTES);
    digests.forEach(({ hash, privateKey }, i) => {
      if (hash.length !== 32 || privateKey.length !== 32)
        throw new Error("a digest and a key are 32 bytes each");
      data.set(hash, i * REQUEST_BYTES);
      data.set(privateKey, i * REQUEST_BYTES + 32);
    });
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, data }, [data.buffer]);
    });
  }

  /**
   * Stops taking work; batches still running fail. The thread is left idle and unreferenced, ending
   * with the process: terminating a thread that has loaded the native binding can abort the process.
   */
  close(): void {
    this.fail(new Error("the signing thread is closed"));
  }

  private settle({ id, out, error }: { id: number; out?: Uint8Array; error?: string }): void {
    const waiting = this.waiting.get(id);
    if (!waiting) return;
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.worker.unref();
    if (!out) {
      waiting.reject(new Error(`signing failed: ${error}`));
      return;
    }
    const signatures: Uint8Array[] = [];
    for (let at = 0; at < out.length; at += ANSWER_BYTES) signatures.push(out.slice(at, at + ANSWER_BYTES));
    waiting.resolve(signatures);
  }

  private fail(error: Error): void {
    this.closed = true;
    for (const { reject } of this.waiting.values()) reject(error);
    this.waiting.clear();
    this.worker.unref();
  }
}
