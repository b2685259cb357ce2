import { Worker } from "node:worker_threads";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { describe, expect, it } from "vitest";
import { sourceWorkerBootstrap } from "../execution/worker/source-worker.js";
import { nativeKeccakAvailable } from "./keccak.js";
import { nativeCrypto, nativeCryptoAvailable } from "./native-crypto.js";

describe("native crypto hooks", () => {
  const hooks = nativeCrypto();

  it("loads both native bindings on this platform", () => {
    expect(nativeCryptoAvailable).toBe(true);
    expect(nativeKeccakAvailable).toBe(true);
  });

  it("leaves both bindings unloaded on worker threads (their teardown corrupted the heap), keeping keccak there", async () => {
    const probe = new URL("../testing/native-crypto-probe.ts", import.meta.url);
    const worker = new Worker(sourceWorkerBootstrap(probe), { eval: true });
    const answer = await new Promise((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    await worker.terminate();
    expect(answer).toEqual({
      nativeCryptoAvailable: false,
      nativeKeccakAvailable: false,
      hooks: ["keccak256", "sha256"],
      keccakOf100: Buffer.from(keccak_256(Uint8Array.from({ length: 100 }, (_, i) => i))).toString("hex"),
    });
  });

  it("hashes like the reference keccak-256, for every input size", () => {
    for (const size of [0, 1, 31, 32, 135, 136, 137, 532, 1023, 1024, 1025, 5000]) {
      const data = Uint8Array.from({ length: size }, (_, i) => (i * 31 + size) & 0xff);
      expect(Buffer.from(hooks.keccak256!(data)).toString("hex")).toBe(
        Buffer.from(keccak_256(data)).toString("hex"),
      );
    }
  });

  it("hashes like the reference SHA-256, into a plain byte array of its own", () => {
    for (const size of [0, 1, 55, 56, 64, 1000]) {
      const data = Uint8Array.from({ length: size }, (_, i) => (i * 7 + size) & 0xff);
      const hash = hooks.sha256!(data);
      expect(Buffer.from(hash).toString("hex")).toBe(Buffer.from(sha256(data)).toString("hex"));
      expect(Object.getPrototypeOf(hash)).toBe(Uint8Array.prototype);
      expect(hash.byteOffset).toBe(0);
      expect(hash.buffer.byteLength).toBe(32);
    }
  });

  it("recovers the signer's public key for typed and EIP-155 signatures", () => {
    const privateKey = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
    const publicKey = secp256k1.getPublicKey(privateKey, false).subarray(1);
    const hash = keccak_256(new TextEncoder().encode("strata"));
    const signature = secp256k1.Signature.fromBytes(
      secp256k1.sign(hash, privateKey, { prehash: false, format: "recovered" }),
      "recovered",
    );
    const r = Uint8Array.from(Buffer.from(signature.r.toString(16).padStart(64, "0"), "hex"));
    const s = Uint8Array.from(Buffer.from(signature.s.toString(16).padStart(64, "0"), "hex"));
    const recovery = BigInt(signature.recovery!);
    expect(hooks.ecrecover!(hash, recovery, r, s)).toEqual(publicKey);
    expect(hooks.ecrecover!(hash, 27n + recovery, r, s)).toEqual(publicKey);
    expect(hooks.ecrecover!(hash, 1337n * 2n + 35n + recovery, r, s, 1337n)).toEqual(publicKey);
    expect(() => hooks.ecrecover!(hash, 5n, r, s)).toThrow("Invalid signature v value");
  });
});
