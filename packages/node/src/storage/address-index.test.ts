import { createBlock } from "@ethereumjs/block";
import { createTx } from "@ethereumjs/tx";
import { describe, expect, it } from "vitest";
import {
  addressIndexWrites,
  contractCreation,
  positionsAfter,
  positionsBefore,
  txBySenderAndNonce,
} from "./address-index.js";
import { MemoryKV } from "./memory-kv.js";
import type { StoredReceipt } from "./records.js";

const key = new Uint8Array(32).fill(7);
const alice = new Uint8Array(20).fill(0xa1);
const bob = new Uint8Array(20).fill(0xb0);
const contract = new Uint8Array(20).fill(0xcc);

function receipt(sender: Uint8Array, txHash: Uint8Array, created?: Uint8Array): StoredReceipt {
  return {
    type: 0,
    status: 1,
    cumulativeGasUsed: 0n,
    gasUsed: 21_000n,
    logs: [],
    sender,
    contractAddress: created,
    txHash,
  };
}

/** Block `number` with transfers alice -> `to` (nonces from `nonce`) and one deployment when asked. */
async function commitBlock(
  kv: MemoryKV,
  number: bigint,
  recipients: Uint8Array[],
  nonce: bigint,
  deploy = false,
) {
  const txs = recipients.map((to, i) =>
    createTx({ nonce: nonce + BigInt(i), gasLimit: 21_000n, gasPrice: 1n, to }).sign(key),
  );
  if (deploy)
    txs.push(createTx({ nonce: nonce + BigInt(txs.length), gasLimit: 60_000n, gasPrice: 1n }).sign(key));
  const block = createBlock({ header: { number }, transactions: txs });
  const receipts = txs.map((tx) => receipt(alice, tx.hash(), tx.to ? undefined : contract));
  await kv.commit(addressIndexWrites(block, receipts));
  return txs.map((tx) => tx.hash());
}

describe("address index", () => {
  it("lists an address's transactions newest first before a block and oldest first after one", async () => {
    const kv = new MemoryKV();
    await commitBlock(kv, 1n, [bob, alice], 0n);
    await commitBlock(kv, 2n, [bob], 2n);
    await commitBlock(kv, 3n, [bob, bob], 3n);
    const show = (it: Iterable<{ block: bigint; index: number }>) =>
      [...it].map((p) => `${p.block}:${p.index}`);
    expect(show(positionsBefore(kv, bob, undefined, 3n))).toEqual(["3:1", "3:0", "2:0", "1:0"]);
    expect(show(positionsBefore(kv, bob, 3n, 3n))).toEqual(["2:0", "1:0"]);
    // Blocks past the head are not visible yet.
    expect(show(positionsBefore(kv, bob, undefined, 2n))).toEqual(["2:0", "1:0"]);
    expect(show(positionsAfter(kv, bob, 1n, 3n))).toEqual(["2:0", "3:0", "3:1"]);
    // Far-apart blocks are found through the widening backwards windows.
    await commitBlock(kv, 100n, [bob], 5n);
    expect(show(positionsBefore(kv, bob, undefined, 100n))).toEqual(["100:0", "3:1", "3:0", "2:0", "1:0"]);
    expect(show(positionsBefore(kv, bob, 100n, 100n))).toEqual(["3:1", "3:0", "2:0", "1:0"]);
    // A transfer to oneself is listed once for its sender.
    expect(show(positionsBefore(kv, alice, 2n, 3n))).toEqual(["1:1", "1:0"]);
  });

  it("finds transactions by sender and nonce, and top-level deployments", async () => {
    const kv = new MemoryKV();
    const hashes = await commitBlock(kv, 1n, [bob], 5n, true);
    expect(txBySenderAndNonce(kv, alice, 5n)).toEqual(hashes[0]);
    expect(txBySenderAndNonce(kv, alice, 6n)).toEqual(hashes[1]);
    expect(txBySenderAndNonce(kv, alice, 7n)).toBeUndefined();
    expect(contractCreation(kv, contract)).toEqual({ txHash: hashes[1], creator: alice });
    expect(contractCreation(kv, bob)).toBeUndefined();
    expect([...positionsBefore(kv, contract, undefined, 1n)]).toEqual([{ block: 1n, index: 1 }]);
  });
});
