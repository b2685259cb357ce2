import { type Hex, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpc, viemClients } from "../../e2e/clients.js";
import { nextGasLimit } from "../../execution/block/payload-builder.js";
import { startTestNode, type TestNode } from "../../testing/test-node.js";

type Head = { number: Hex; hash: Hex; timestamp: Hex; gasLimit: Hex; stateRoot: Hex };
type Envelope = {
  executionPayload: {
    parentHash: Hex;
    blockNumber: Hex;
    blockHash: Hex;
    gasLimit: Hex;
    gasUsed: Hex;
    extraData: Hex;
    feeRecipient: Hex;
    timestamp: Hex;
    transactions: Hex[];
    withdrawals: unknown[];
  };
  blockValue: Hex;
  blobsBundle: unknown;
  shouldOverrideBuilder: boolean;
};

const feeRecipient = "0x7000000000000000000000000000000000000007";

describe("testing_buildBlockV1", () => {
  let t: TestNode;
  let head: Head;

  beforeAll(async () => {
    t = await startTestNode();
    head = (await rpc(t.url, "eth_getBlockByNumber", ["latest", false])).result as Head;
  });

  afterAll(() => t?.stop());

  function attributes() {
    return {
      timestamp: toHex(BigInt(head.timestamp) + 12n),
      prevRandao: `0x${"00".repeat(32)}`,
      suggestedFeeRecipient: feeRecipient,
      withdrawals: [],
      parentBeaconBlockRoot: `0x${"11".repeat(32)}`,
    };
  }

  async function signedTransfer(nonceOffset = 0n): Promise<Hex> {
    const { wallet, publicClient } = viemClients(t.url);
    const nonce = await publicClient.getTransactionCount({ address: wallet.account.address });
    const request = await wallet.prepareTransactionRequest({
      to: feeRecipient,
      value: 1n,
      nonce: nonce + Number(nonceOffset),
    });
    return wallet.signTransaction(request);
  }

  it("builds the block after the head from the given transactions without importing it", async () => {
    const raw = await signedTransfer();
    const response = await rpc(t.url, "testing_buildBlockV1", [head.hash, attributes(), [raw], "0x1234"]);
    expect(response.error, JSON.stringify(response.error)).toBeUndefined();
    const envelope = response.result as Envelope;
    const payload = envelope.executionPayload;
    expect(payload.parentHash).toBe(head.hash);
    expect(BigInt(payload.blockNumber)).toBe(BigInt(head.number) + 1n);
    expect(payload.transactions).toEqual([raw]);
    expect(payload.gasUsed).toBe("0x5208");
    expect(payload.extraData).toBe("0x1234");
    expect(payload.feeRecipient).toBe(feeRecipient);
    expect(BigInt(payload.gasLimit)).toBe(nextGasLimit(BigInt(head.gasLimit), 60_000_000n));
    expect(BigInt(envelope.blockValue)).toBeGreaterThan(0n);
    expect(envelope.blobsBundle).toEqual({ commitments: [], proofs: [], blobs: [] });
    expect(envelope.shouldOverrideBuilder).toBe(false);
    // The chain is untouched.
    expect((await rpc(t.url, "eth_blockNumber")).result).toBe(head.number);
  });

  it("builds an empty block for an empty list, and the same block twice", async () => {
    const build = async () =>
      ((await rpc(t.url, "testing_buildBlockV1", [head.hash, attributes(), []])).result as Envelope)
        .executionPayload;
    const first = await build();
    expect(first.transactions).toEqual([]);
    expect(first.gasUsed).toBe("0x0");
    expect(first.extraData).toBe("0x");
    expect((await build()).blockHash).toBe(first.blockHash);
  });

  it("refuses a transaction that cannot be included, and a parent that is not the head", async () => {
    const tooHigh = await signedTransfer(5n);
    const refused = await rpc(t.url, "testing_buildBlockV1", [head.hash, attributes(), [tooHigh]]);
    expect(refused.error?.code).toBe(-32000);
    expect(refused.error?.message).toMatch(/^nonce too high: address 0x/);
    const wrongParent = await rpc(t.url, "testing_buildBlockV1", [`0x${"22".repeat(32)}`, attributes(), []]);
    expect(wrongParent.error).toEqual({ code: -32000, message: "parentHash is not current head" });
  });

  it("computes the gas limit as geth: a step of 1/1024 of the parent's toward the target", () => {
    expect(nextGasLimit(200_000_000n, 60_000_000n)).toBe(0xbe8c711n);
    expect(nextGasLimit(30_000_000n, 60_000_000n)).toBe(30_000_000n + 30_000_000n / 1024n - 1n);
    expect(nextGasLimit(60_000_000n, 60_000_000n)).toBe(60_000_000n);
  });
});
