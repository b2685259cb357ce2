import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import {
  createAccessList2930Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type TypedTransaction,
} from "@ethereumjs/tx";
import { bytesToHex } from "@ethereumjs/util";
import { beforeAll, describe, expect, it } from "vitest";
import { loadNetwork } from "../config/network.js";
import { createChainCommon } from "../execution/evm/common.js";
import { signingHash } from "./signing-hash.js";

const KEY = Uint8Array.from({ length: 32 }, (_, i) => i + 3);
const TO: `0x${string}` = "0x00000000000000000000000000000000000000cc";

/** Deterministic bytes of any length, so data fields cross RLP's short/long header boundaries. */
function bytes(length: number, seed: number): `0x${string}` {
  return bytesToHex(Uint8Array.from({ length }, (_, i) => (i * 37 + seed) & 0xff));
}

/** What @ethereumjs hashes for the signature, the reference. */
function reference(tx: TypedTransaction): string {
  return bytesToHex(tx.getHashedMessageToSign());
}

/** The signing hash cut from the transaction's own encoding. */
function fromEncoding(tx: TypedTransaction, eip155ChainId?: bigint): string {
  const encoding = tx.serialize();
  const typed = tx.type !== 0;
  const fields = (RLP.decode(typed ? encoding.subarray(1) : encoding) as unknown[]).length;
  return bytesToHex(signingHash(encoding, typed, fields, eip155ChainId));
}

describe("signingHash", () => {
  let common: Common;

  beforeAll(async () => {
    common = await createChainCommon(loadNetwork("dev"));
  });

  // Data lengths around every header boundary: single byte, short string (<= 55), one, two and
  // three length bytes; the list header moves from short to long form along with them.
  const lengths = [0, 1, 20, 55, 56, 200, 255, 256, 70_000];

  it("equals @ethereumjs' hash for EIP-1559, EIP-2930 and EIP-7702 transactions", () => {
    for (const [i, length] of lengths.entries()) {
      const data = bytes(length, i);
      const fees = { maxFeePerGas: 10n ** 10n + BigInt(i), maxPriorityFeePerGas: BigInt(i) };
      const accessList = Array.from({ length: i % 4 }, (_, k) => ({
        address: TO,
        storageKeys: Array.from({ length: k }, (_, n) => bytes(32, n)),
      }));
      const txs = [
        createFeeMarket1559Tx(
          { nonce: i, to: TO, gasLimit: 2_000_000n, data, accessList, ...fees },
          { common },
        ),
        // A creation (empty `to`), whose init code is held to EIP-3860's 49,152 bytes.
        createFeeMarket1559Tx(
          {
            nonce: 2 ** 40 + i,
            gasLimit: 5_000_000n,
            data: bytes(Math.min(length, 40_000), i),
            value: 10n ** 30n,
            ...fees,
          },
          { common },
        ),
        createAccessList2930Tx(
          { nonce: i, to: TO, gasLimit: 900_000n, gasPrice: 7n, data, accessList },
          { common },
        ),
        createEOACode7702Tx(
          {
            nonce: i,
            to: TO,
            gasLimit: 900_000n,
            data,
            ...fees,
            authorizationList: [
              {
                chainId: "0x539",
                address: TO,
                nonce: "0x0",
                yParity: "0x1",
                r: bytes(32, 1),
                s: bytes(32, 2),
              },
            ],
          },
          { common },
        ),
      ];
      for (const tx of txs) {
        const signed = tx.sign(KEY);
        expect(fromEncoding(signed), `type ${tx.type}, data ${length} bytes`).toBe(reference(signed));
      }
    }
  });

  it("equals @ethereumjs' hash for legacy transactions with and without EIP-155", () => {
    const preEip155 = new Common({ chain: Mainnet, hardfork: Hardfork.TangerineWhistle });
    const otherChain = new Common({ chain: { ...Mainnet, chainId: 2 ** 40 + 7 }, hardfork: Hardfork.Prague });
    for (const [i, length] of lengths.entries()) {
      const fields = { nonce: i, to: TO, gasLimit: 2_000_000n, gasPrice: 10n ** 9n, data: bytes(length, i) };
      const eip155 = createLegacyTx(fields, { common }).sign(KEY);
      expect(fromEncoding(eip155, common.chainId()), `EIP-155, data ${length}`).toBe(reference(eip155));
      const bigChain = createLegacyTx(fields, { common: otherChain }).sign(KEY);
      expect(fromEncoding(bigChain, otherChain.chainId()), `chain 2^40+7, data ${length}`).toBe(
        reference(bigChain),
      );
      const unprotected = createLegacyTx(fields, { common: preEip155 }).sign(KEY);
      expect(unprotected.v).toBeLessThan(29n);
      expect(fromEncoding(unprotected), `no EIP-155, data ${length}`).toBe(reference(unprotected));
    }
  });

  it("differs when any signed field differs", () => {
    const base = { nonce: 1, to: TO, gasLimit: 21_000n, maxFeePerGas: 10n, maxPriorityFeePerGas: 1n };
    const a = createFeeMarket1559Tx(base, { common }).sign(KEY);
    const b = createFeeMarket1559Tx({ ...base, nonce: 2 }, { common }).sign(KEY);
    expect(fromEncoding(a)).not.toBe(fromEncoding(b));
  });
});
