import { createRequire } from "node:module";
import { RLP } from "@ethereumjs/rlp";
import { bigIntToUnpaddedBytes, bytesToHex, hexToBytes, privateToAddress } from "@ethereumjs/util";
import { keccak256 } from "../crypto/keccak.js";

interface Secp256k1 {
  ecdsaSign(msg32: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
}

const secp256k1 = createRequire(import.meta.url)("secp256k1") as Secp256k1;
const DEV_CHAIN_ID = 1337n;
const EIP1559_TYPE = 2;

/** The fields of a dev-network EIP-1559 transaction to sign; the rest default to a 1 wei transfer. */
export interface TransferFields {
  readonly nonce: bigint;
  readonly to: string;
  readonly value?: bigint;
  readonly gas?: bigint;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

/** A throwaway account whose key is derived from a seed (tests that need many senders). */
export interface TestAccount {
  /** Lowercase hex. */
  readonly address: string;
  readonly key: Uint8Array;
}

/** The test account of `seed`: key = keccak256("strata-test-account:" + seed). */
export function testAccount(seed: number): TestAccount {
  const key = keccak256(new TextEncoder().encode(`strata-test-account:${seed}`));
  return { key, address: bytesToHex(privateToAddress(key)) };
}

/**
 * Signs an EIP-1559 transaction of the dev network (chain id 1337) and returns it raw: the RLP is
 * written directly and signed with native libsecp256k1, a small fraction of what a general-purpose
 * signer costs, so tests can sign tens of thousands.
 */
export function signTransfer(key: Uint8Array, fields: TransferFields): string {
  const unsigned = [
    bigIntToUnpaddedBytes(DEV_CHAIN_ID),
    bigIntToUnpaddedBytes(fields.nonce),
    bigIntToUnpaddedBytes(fields.maxPriorityFeePerGas),
    bigIntToUnpaddedBytes(fields.maxFeePerGas),
    bigIntToUnpaddedBytes(fields.gas ?? 21_000n),
    hexToBytes(fields.to as `0x${string}`),
    bigIntToUnpaddedBytes(fields.value ?? 1n),
    new Uint8Array(0),
    [],
  ];
  const { signature, recid } = secp256k1.ecdsaSign(keccak256(typed(RLP.encode(unsigned))), key);
  const r = stripZeros(signature.subarray(0, 32));
  const s = stripZeros(signature.subarray(32));
  return bytesToHex(typed(RLP.encode([...unsigned, bigIntToUnpaddedBytes(BigInt(recid)), r, s])));
}

function typed(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(payload.length + 1);
  out[0] = EIP1559_TYPE;
  out.set(payload, 1);
  return out;
}

function stripZeros(bytes: Uint8Array): Uint8Array {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  return bytes.subarray(i);
}
