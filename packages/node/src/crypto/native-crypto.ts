import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { isMainThread } from "node:worker_threads";
import type { CustomCrypto } from "@ethereumjs/common";
import { keccak256 } from "./keccak.js";

interface Secp256k1Binding {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
}

const require = createRequire(import.meta.url);

/**
 * Loads the `secp256k1` package's prebuilt native binding (libsecp256k1). Returns undefined when the
 * binding cannot load on this platform, in which case callers keep the pure-JS path.
 */
function loadNativeSecp256k1(): Secp256k1Binding | undefined {
  try {
    return require("secp256k1/bindings.js") as Secp256k1Binding;
  } catch {
    return undefined;
  }
}

// Main thread only: a worker thread that had loaded the binding corrupted the heap when it was torn
// down (eth_call workers end with their node; seen as "free(): invalid pointer" in V8's array buffer
// sweeper). Worker threads recover senders through their own binding (sender-recovery.ts) and run
// the ecrecover precompile in JS.
const native = isMainThread ? loadNativeSecp256k1() : undefined;

/** True when sender recovery runs on native libsecp256k1 (on the main thread; never on workers). */
export const nativeCryptoAvailable = native !== undefined;

/**
 * The secp256k1 recovery id (0 or 1) of a signature's `v`: a y-parity, 27/28, or EIP-155's
 * `chainId * 2 + 35/36` when `chainId` is given. Throws on any other value.
 */
export function recoveryId(v: bigint, chainId: bigint | undefined): number {
  if (v === 0n || v === 1n) return Number(v);
  const recovery = chainId === undefined ? v - 27n : v - (chainId * 2n + 35n);
  if (recovery !== 0n && recovery !== 1n) throw new Error("Invalid signature v value");
  return Number(recovery);
}

/** `r` or `s` as the 32 bytes a compact signature holds (left-padded); throws when longer. */
export function pad32(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 32) return bytes;
  if (bytes.length > 32) throw new Error("Invalid signature: r or s longer than 32 bytes");
  const out = new Uint8Array(32);
  out.set(bytes, 32 - bytes.length);
  return out;
}

/** SHA-256 by Node's crypto (OpenSSL), as a plain byte array of its own. */
function sha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash("sha256").update(data).digest());
}

/**
 * @ethereumjs `customCrypto` hooks: keccak-256 (hashes, tries, the SHA3 opcode; see `keccak.ts`) and
 * SHA-256 (the requests hash of every Prague block, the 0x02 precompile) on every thread, and, where
 * the binding loads, native libsecp256k1 sender recovery for every transaction type and the
 * ecrecover precompile (otherwise @ethereumjs keeps its pure-JS path).
 */
export function nativeCrypto(): CustomCrypto {
  const hooks: CustomCrypto = { keccak256, sha256 };
  if (!native) return hooks;
  const binding = native;
  return {
    ...hooks,
    ecrecover(msgHash, v, r, s, chainId) {
      const sig = new Uint8Array(64);
      sig.set(pad32(r), 0);
      sig.set(pad32(s), 32);
      return binding.ecdsaRecover(sig, recoveryId(v, chainId), msgHash, false).subarray(1);
    },
  };
}
