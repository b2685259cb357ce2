import { createRequire } from "node:module";
import { dirname } from "node:path";
import { isMainThread } from "node:worker_threads";
import { createKeccak } from "hash-wasm";

/** The Keccak sponge of the `keccak` package's native (XKCP) binding. */
interface KeccakState {
  initialize(rate: number, capacity: number): void;
  absorb(data: Uint8Array): void;
  absorbLastFewBits(bits: number): void;
  squeeze(length: number): Uint8Array;
}

/**
 * Inputs of at least this many bytes go to the native sponge when it is loaded. Below it the
 * WebAssembly hasher is faster: each native call crosses N-API four times, which costs more than
 * hashing a transaction or a trie node (0.7 µs against 1.5 µs for 120 bytes on the reference
 * machine); from about a kilobyte the native code's speed wins.
 */
const NATIVE_FROM_BYTES = 1024;

/**
 * Loads the `keccak` package's prebuilt native sponge, used directly (one reusable state, no stream
 * wrapper). Main thread only: a worker thread holding the binding can abort the process when it is
 * torn down.
 */
function loadNativeKeccak(): ((data: Uint8Array) => Uint8Array) | undefined {
  if (!isMainThread) return undefined;
  try {
    const require = createRequire(import.meta.url);
    const packageDir = dirname(require.resolve("keccak/package.json"));
    const nodeGypBuild = require("node-gyp-build") as (dir: string) => new () => KeccakState;
    const state = new (nodeGypBuild(packageDir))();
    return (data) => {
      state.initialize(1088, 512);
      state.absorb(data);
      state.absorbLastFewBits(0x01);
      return state.squeeze(32);
    };
  } catch {
    return undefined;
  }
}

const native = loadNativeKeccak();
// One hasher per thread (each thread evaluates this module itself); hashing is synchronous, so calls
// never interleave on it.
const wasm = await createKeccak(256);

/** True when long inputs hash on the native binding (main thread only; never on workers). */
export const nativeKeccakAvailable = native !== undefined;

/**
 * keccak-256 of `data` as a new 32-byte array: WebAssembly for short inputs, and the native binding
 * for long ones where it is loaded. Works on any thread.
 */
export function keccak256(data: Uint8Array): Uint8Array {
  if (native !== undefined && data.length >= NATIVE_FROM_BYTES) return native(data);
  return wasm.init().update(data).digest("binary");
}
