/**
 * A worker program for tests: reports which native crypto bindings the crypto modules loaded in a
 * worker thread, which @ethereumjs hooks they offer there, and the keccak-256 of the bytes 0..99
 * as hashed there.
 */
import { parentPort } from "node:worker_threads";
import { keccak256, nativeKeccakAvailable } from "../crypto/keccak.js";
import { nativeCrypto, nativeCryptoAvailable } from "../crypto/native-crypto.js";

parentPort?.postMessage({
  nativeCryptoAvailable,
  nativeKeccakAvailable,
  hooks: Object.keys(nativeCrypto()),
  keccakOf100: Buffer.from(keccak256(Uint8Array.from({ length: 100 }, (_, i) => i))).toString("hex"),
});
