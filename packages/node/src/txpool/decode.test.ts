import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import {
  createAccessList2930Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type TypedTransaction,
} from "@ethereumjs/tx";
import { bytesToHex, privateToAddress, SECP256K1_ORDER } from "@ethereumjs/util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadNetwork } from "../config/network.js";
import { SenderRecovery } from "../crypto/sender-recovery.js";
import { createChainCommon } from "../execution/evm/common.js";
import { decodeRawTransaction } from "./decode.js";

const KEY = Uint8Array.from({ length: 32 }, (_, i) => i + 7);
const SENDER = bytesToHex(privateToAddress(KEY));
const TO = "0x00000000000000000000000000000000000000bb";
const MAX = 128 * 1024;

describe("decodeRawTransaction", () => {
  let common: Common;
  let recovery: SenderRecovery;

  beforeAll(async () => {
    common = await createChainCommon(loadNetwork("dev"));
    // Every signature to the workers: the tests below compare their answers with this thread's.
    recovery = SenderRecovery.start(2, { inlineWhenIdle: false })!;
  });
  afterAll(() => recovery.close());

  function signedOfEveryType(): TypedTransaction[] {
    const fees = { maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n };
    return [
      createLegacyTx(
        { nonce: 1, to: TO, value: 5n, gasLimit: 21_000n, gasPrice: 10n ** 10n },
        { common },
      ).sign(KEY),
      createAccessList2930Tx(
        {
          nonce: 2,
          to: TO,
          gasLimit: 30_000n,
          gasPrice: 10n ** 10n,
          accessList: [{ address: TO, storageKeys: [] }],
        },
        { common },
      ).sign(KEY),
      createFeeMarket1559Tx(
        { nonce: 3, to: TO, gasLimit: 21_000n, data: "0xabcd", ...fees },
        { common },
      ).sign(KEY),
      createEOACode7702Tx(
        {
          nonce: 4,
          to: TO,
          gasLimit: 60_000n,
          ...fees,
          authorizationList: [
            { chainId: "0x539", address: TO, nonce: "0x0", yParity: "0x0", r: "0x01", s: "0x01" },
          ],
        },
        { common },
      ).sign(KEY),
    ];
  }

  it("recovers the same sender on worker threads and in-thread, for every transaction type", async () => {
    for (const tx of signedOfEveryType()) {
      const raw = tx.serialize();
      for (const worker of [recovery, undefined]) {
        const decoded = await decodeRawTransaction(raw, common, MAX, worker);
        expect(decoded.getSenderAddress().toString()).toBe(SENDER);
        expect(bytesToHex(decoded.hash())).toBe(bytesToHex(tx.hash()));
        expect(bytesToHex(decoded.serialize())).toBe(bytesToHex(raw));
        expect(Object.isFrozen(decoded)).toBe(true);
      }
    }
  });

  it("keeps a pre-EIP-155 legacy signature (v = 27/28) working on both paths", async () => {
    // Signed under Homestead rules: no chain id in the signature.
    const homestead = new Common({ chain: Mainnet, hardfork: Hardfork.Homestead });
    const tx = createLegacyTx(
      { nonce: 0, to: TO, gasLimit: 21_000n, gasPrice: 10n ** 10n },
      { common: homestead },
    ).sign(KEY);
    expect(tx.v === 27n || tx.v === 28n).toBe(true);
    for (const worker of [recovery, undefined]) {
      const decoded = await decodeRawTransaction(tx.serialize(), common, MAX, worker);
      expect(decoded.getSenderAddress().toString()).toBe(SENDER);
    }
  });

  it("refuses a high-s signature and a signature that recovers no key, the same way on both paths", async () => {
    const tx = createFeeMarket1559Tx(
      { nonce: 0, to: TO, gasLimit: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n },
      { common },
    ).sign(KEY);
    const fields = RLP.decode(tx.serialize().subarray(1)) as Uint8Array[];
    const withSignature = (v: bigint, r: bigint, s: bigint) =>
      Uint8Array.from([2, ...RLP.encode([...fields.slice(0, 9), toBytes(v), toBytes(r), toBytes(s)])]);
    const highS = withSignature(tx.v! ^ 1n, tx.r!, SECP256K1_ORDER - tx.s!);
    // No point of the curve has x = 5: recovery fails.
    const noKey = withSignature(tx.v!, 5n, tx.s!);
    for (const worker of [recovery, undefined]) {
      await expect(decodeRawTransaction(highS, common, MAX, worker)).rejects.toThrow(
        "invalid transaction: Invalid Signature: s-values greater than secp256k1n/2 are considered invalid",
      );
      await expect(decodeRawTransaction(noKey, common, MAX, worker)).rejects.toThrow("invalid sender");
    }
  });

  it("answers many concurrent submissions from one batch, each with its own sender", async () => {
    const keys = Array.from({ length: 300 }, (_, i) =>
      Uint8Array.from({ length: 32 }, (_, j) => (i * 7 + j + 1) & 0xff),
    );
    const txs = keys.map((key, i) =>
      createFeeMarket1559Tx(
        { nonce: i, to: TO, gasLimit: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n },
        { common },
      ).sign(key),
    );
    const decoded = await Promise.all(
      txs.map((tx) => decodeRawTransaction(tx.serialize(), common, MAX, recovery)),
    );
    decoded.forEach((tx, i) => {
      expect(tx.getSenderAddress().toString()).toBe(bytesToHex(privateToAddress(keys[i]!)));
    });
  });

  it("recovers a transaction arriving alone on this thread, and a stream on the workers in batches", async () => {
    const pool = SenderRecovery.start(1)!;
    try {
      const [legacy, accessList, feeMarket] = signedOfEveryType();
      const alone = await decodeRawTransaction(feeMarket!.serialize(), common, MAX, pool);
      expect(alone.getSenderAddress().toString()).toBe(SENDER);
      expect(pool.batches).toBe(0);
      // A while later, another lone transaction: this thread again.
      await new Promise((resolve) => setTimeout(resolve, 20));
      await decodeRawTransaction(legacy!.serialize(), common, MAX, pool);
      expect(pool.batches).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 20));
      // Three at once: the first here, the other two (a stream) to a worker together.
      const burst = await Promise.all(
        [legacy, accessList, feeMarket].map((tx) => decodeRawTransaction(tx!.serialize(), common, MAX, pool)),
      );
      for (const tx of burst) expect(tx.getSenderAddress().toString()).toBe(SENDER);
      expect(pool.batches).toBe(1);
    } finally {
      pool.close();
    }
  });

  it("recovers in-thread once the workers are closed", async () => {
    const closed = SenderRecovery.start(1)!;
    await closed.close();
    expect(closed.available).toBe(false);
    const [tx] = signedOfEveryType();
    const decoded = await decodeRawTransaction(tx!.serialize(), common, MAX, closed);
    expect(decoded.getSenderAddress().toString()).toBe(SENDER);
  });
});

function toBytes(value: bigint): Uint8Array {
  if (value === 0n) return new Uint8Array();
  const hex = value.toString(16);
  return Uint8Array.from(Buffer.from(hex.length % 2 ? `0${hex}` : hex, "hex"));
}
