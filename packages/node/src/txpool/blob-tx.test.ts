import { type Blob4844Tx, createBlob4844Tx } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccount, rpc } from "../e2e/clients.js";
import { startTestNode, type TestNode } from "../testing/test-node.js";

const RECIPIENT = "0x00000000000000000000000000000000000000bb";

describe("blob transactions", () => {
  let t: TestNode;
  let tx: Blob4844Tx;
  let key: Uint8Array;

  beforeAll(async () => {
    t = await startTestNode({ mining: { mode: "manual" } });
    key = devAccount(0).getHdKey().privateKey!;
    tx = blobTx(0n, ["strata blob"]);
  });
  afterAll(() => t.stop());

  function blobTx(nonce: bigint, blobsData: string[]): Blob4844Tx {
    return createBlob4844Tx(
      {
        nonce,
        to: RECIPIENT,
        gasLimit: 50_000n,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
        maxFeePerBlobGas: 1_000n,
        blobsData,
      },
      { common: t.node.chain.common },
    ).sign(key);
  }

  it("accepts the network form with its sidecar, verified, beyond the 128 KiB limit of other types", async () => {
    const wrapped = tx.serializeNetworkWrapper();
    expect(wrapped.length).toBeGreaterThan(128 * 1024);
    const answer = await rpc(t.url, "eth_sendRawTransaction", [bytesToHex(wrapped)]);
    expect(answer).toMatchObject({ result: bytesToHex(tx.hash()) });
  });

  it("refuses the canonical form without a sidecar, and a sidecar whose proof does not verify", async () => {
    const bare = await rpc(t.url, "eth_sendRawTransaction", [
      bytesToHex(blobTx(1n, ["another blob"]).serialize()),
    ]);
    expect(bare.error).toMatchObject({ code: -32003, message: "missing sidecar in blob transaction" });
    const other = blobTx(1n, ["a third blob"]);
    const wrapped = other.serializeNetworkWrapper();
    // Flip a byte of the last proof (the wrapper ends with the proofs).
    wrapped[wrapped.length - 5] = wrapped[wrapped.length - 5]! ^ 0x01;
    const forged = await rpc(t.url, "eth_sendRawTransaction", [bytesToHex(wrapped)]);
    expect(forged.error?.message).toMatch(/^invalid transaction: /);
  });

  it("mines the transaction without its sidecar and reports the blob fields", async () => {
    await t.node.producer.mine(1);
    const block = await rpc(t.url, "debug_getRawBlock", ["latest"]);
    expect(hexToBytes(block.result as `0x${string}`).length).toBeLessThan(4096);
    const hash = bytesToHex(tx.hash());
    const mined = (await rpc(t.url, "eth_getTransactionByHash", [hash])).result as Record<string, unknown>;
    expect(mined).toMatchObject({
      type: "0x3",
      maxFeePerBlobGas: "0x3e8",
      blobVersionedHashes: tx.blobVersionedHashes,
    });
    expect(mined.blockNumber).toBe("0x1");
    const receipt = (await rpc(t.url, "eth_getTransactionReceipt", [hash])).result as Record<string, unknown>;
    expect(receipt).toMatchObject({ status: "0x1", blobGasUsed: "0x20000", blobGasPrice: "0x1" });
  });
});
