import { createRequire } from "node:module";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";

/** One digest to sign: the 32-byte message hash and the 32-byte private key. */
export interface DigestToSign {
  readonly hash: Uint8Array;
  readonly privateKey: Uint8Array;
}

/** Bytes of one request: hash, key. */
const REQUEST_BYTES = 32 + 32;
/** Bytes of one answer: r ‖ s ‖ recovery id. */
const ANSWER_BYTES = 65;

/** What the thread is started with: where it finds the native binding, and the port it answers on. */
interface ThreadData {
  readonly secp256k1: string;
  readonly answers: MessagePort;
}

/**
 * The thread's program: native libsecp256k1 signing (deterministic RFC 6979 nonces), one batch per
 * message; an answer, on the port of its own, holds r ‖ s ‖ recovery id per digest, or an error
 * message when a key is invalid. It runs as an evaluated script and uses nothing from this module's
 * scope, and it loads no other native module (see sender-recovery.ts).
 */
function threadProgram(): void {
  const { parentPort, workerData } = require("node:worker_threads") as typeof import("node:worker_threads");
  const { secp256k1, answers } = workerData as ThreadData;
  const secp = require(secp256k1) as {
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
      answers.postMessage({ id, error: String(error) });
      return;
    }
    answers.postMessage({ id, out }, [out.buffer]);
  });
}

let shared: { readonly thread: SigningThread | undefined } | undefined;

interface Waiting {
  readonly digests: readonly DigestToSign[];
  readonly resolve: (signatures: Uint8Array[]) => void;
  readonly reject: (error: Error) => void;
}

/** What the thread answers for one batch. */
interface Answer {
  readonly id: number;
  readonly out?: Uint8Array;
  readonly error?: string;
}

/** Signs a 32-byte digest with a 32-byte key as libsecp256k1 does: r ‖ s ‖ recovery id. */
export type SignHere = (hash: Uint8Array, privateKey: Uint8Array) => Uint8Array;

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
  private batchesSignedHere = 0;

  private constructor(
    private readonly worker: Worker,
    private readonly answers: MessagePort,
  ) {
    answers.on("message", (answer: Answer) => this.settle(answer));
    // The worker is referenced while batches wait (see `sign`); the port never holds the process.
    answers.unref();
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
    let secp256k1: string;
    try {
      secp256k1 = createRequire(import.meta.url).resolve("secp256k1/bindings.js");
    } catch {
      return undefined;
    }
    const source = `(${threadProgram.toString()})()`;
    const { port1, port2 } = new MessageChannel();
    const workerData: ThreadData = { secp256k1, answers: port2 };
    return new SigningThread(
      new Worker(source, { eval: true, workerData, transferList: [port2], name: "signing", execArgv: [] }),
      port1,
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

  /** Batches {@link settleNow} signed on the calling thread because the thread had not answered them yet. */
  get signedHere(): number {
    return this.batchesSignedHere;
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
      this.waiting.set(id, { digests, resolve, reject });
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

  /**
   * Settles every batch handed over so far, at once: answers the thread has sent are taken as they
   * are, without a turn of the event loop, and a batch it has not answered yet is signed here with
   * `signHere` (RFC 6979: the signatures the thread would give), its late answer then dropped. For
   * a caller that cannot go on without them (a proposer sealing a block built meanwhile): with both
   * cores busy, the thread may get its turn a millisecond or more after the batch was handed over.
   */
  settleNow(signHere: SignHere): void {
    for (let answer = receiveMessageOnPort(this.answers); answer; answer = receiveMessageOnPort(this.answers))
      this.settle(answer.message as Answer);
    for (const [id, { digests }] of [...this.waiting]) {
      this.batchesSignedHere++;
      try {
        this.finish(
          id,
          digests.map(({ hash, privateKey }) => signHere(hash, privateKey)),
        );
      } catch (error) {
        this.settle({ id, error: String(error) });
      }
    }
  }

  private settle({ id, out, error }: Answer): void {
    if (!out) {
      this.finish(id, new Error(`signing failed: ${error}`));
      return;
    }
    const signatures: Uint8Array[] = [];
    for (let at = 0; at < out.length; at += ANSWER_BYTES) signatures.push(out.slice(at, at + ANSWER_BYTES));
    this.finish(id, signatures);
  }

  /** Settles batch `id` once (a batch signed here gets the thread's answer later, and drops it). */
  private finish(id: number, outcome: Uint8Array[] | Error): void {
    const waiting = this.waiting.get(id);
    if (!waiting) return;
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.worker.unref();
    if (outcome instanceof Error) waiting.reject(outcome);
    else waiting.resolve(outcome);
  }

  private fail(error: Error): void {
    this.closed = true;
    for (const { reject } of this.waiting.values()) reject(error);
    this.waiting.clear();
    this.worker.unref();
  }
}
