/**
 * A worker program for tests: reports which native crypto bindings `native-crypto.ts` loaded in a
 * worker thread, and which @ethereumjs hooks it offers there.
 */
import { parentPort } from "node:worker_threads";
import { nativeCrypto, nativeCryptoAvailable, nativeKeccakAvailable } from "../crypto/native-crypto.js";

parentPort?.postMessage({
  nativeCryptoAvailable,
  nativeKeccakAvailable,
  hooks: Object.keys(nativeCrypto()),
});
