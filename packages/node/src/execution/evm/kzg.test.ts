import { RLP } from "@ethereumjs/rlp";
import { createBlob4844Tx, createBlob4844TxFromSerializedNetworkWrapper } from "@ethereumjs/tx";
import { bytesToHex, concatBytes, hexToBytes } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { tinyGenesis } from "../../conformance/harness/tiny-chain.js";
import { networkFromGenesis } from "../../import/datadir-network.js";
import { createChainCommon } from "./common.js";

const KEY = hexToBytes("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");

describe("KZG for blob transactions", () => {
  it("builds, wraps, verifies and decodes a blob transaction, and rejects a forged proof", async () => {
    const common = await createChainCommon(networkFromGenesis(tinyGenesis(), "tiny"));
    common.setHardforkBy({ blockNumber: 1n, timestamp: 1_001n });
    expect(common.hardfork()).toBe("cancun");
    const tx = createBlob4844Tx(
      {
        chainId: 4242n,
        nonce: 0n,
        to: "0x00000000000000000000000000000000000000aa",
        gasLimit: 21_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 10n ** 9n,
        maxFeePerBlobGas: 10n ** 9n,
        blobsData: ["strata blob"],
      },
      { common },
    ).sign(KEY);
    expect(tx.blobVersionedHashes).toHaveLength(1);
    // Versioned hash = 0x01 ‖ sha256(commitment)[1:]
    expect(tx.blobVersionedHashes[0]!.slice(0, 4)).toBe("0x01");

    const wrapped = tx.serializeNetworkWrapper();
    const decoded = createBlob4844TxFromSerializedNetworkWrapper(wrapped, { common });
    expect(bytesToHex(decoded.hash())).toBe(bytesToHex(tx.hash()));
    expect(decoded.getSenderAddress().toString()).toBe("0x70997970c51812dc3a010c7d01b50e0d17dc79c8");

    // Network form: 0x03 ‖ rlp([tx fields, blobs, commitments, proofs]); a valid point that is not the proof.
    const [fields, blobs, commitments] = RLP.decode(wrapped.subarray(1)) as Uint8Array[][];
    const forged = concatBytes(
      new Uint8Array([3]),
      RLP.encode([fields!, blobs!, commitments!, commitments!]),
    );
    expect(() => createBlob4844TxFromSerializedNetworkWrapper(forged, { common })).toThrow(
      /KZG proof cannot be verified/,
    );
  });
});
