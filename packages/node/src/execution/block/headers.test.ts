import { createMPT } from "@ethereumjs/mpt";
import { TestToken } from "@strata/contracts";
import {
  encodeFunctionData,
  type Hex,
  hexToBytes,
  keccak256,
  numberToHex,
  type Signature,
  serializeTransaction,
  type TransactionSerializable,
  toRlp,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadNetwork } from "../../config/network.js";
import { devAccount, rpc, viemClients } from "../../e2e/clients.js";
import { startTestNode, type TestNode } from "../../testing/test-node.js";

type RpcBlock = Record<string, Hex> & { transactions: Record<string, unknown>[] };
type RpcReceipt = {
  status: Hex;
  cumulativeGasUsed: Hex;
  logsBloom: Hex;
  type: Hex;
  logs: { address: Hex; topics: Hex[]; data: Hex }[];
};

let t: TestNode;

const quantity = (q: Hex | undefined): Hex => (BigInt(q!) === 0n ? "0x" : numberToHex(BigInt(q!)));

async function trieRoot(values: Uint8Array[]): Promise<Hex> {
  const trie = await createMPT();
  for (let i = 0; i < values.length; i++)
    await trie.put(hexToBytes(toRlp(i === 0 ? "0x" : numberToHex(i))), values[i]!);
  return `0x${Buffer.from(trie.root()).toString("hex")}`;
}

function rawTransaction(tx: Record<string, unknown>): Hex {
  const type = Number(tx.type as Hex);
  const common = {
    chainId: 1337,
    nonce: Number(tx.nonce as Hex),
    gas: BigInt(tx.gas as Hex),
    to: (tx.to as Hex | null) ?? undefined,
    value: BigInt(tx.value as Hex),
    data: tx.input as Hex,
  };
  const signature: Signature = { r: tx.r as Hex, s: tx.s as Hex, yParity: Number(tx.yParity ?? 0) };
  const typed: TransactionSerializable =
    type === 2
      ? {
          ...common,
          type: "eip1559",
          maxFeePerGas: BigInt(tx.maxFeePerGas as Hex),
          maxPriorityFeePerGas: BigInt(tx.maxPriorityFeePerGas as Hex),
          accessList: [],
        }
      : { ...common, type: "legacy", gasPrice: BigInt(tx.gasPrice as Hex) };
  if (type === 0)
    return serializeTransaction(typed, { r: tx.r as Hex, s: tx.s as Hex, v: BigInt(tx.v as Hex) });
  return serializeTransaction(typed, signature);
}

function rawReceipt(receipt: RpcReceipt): Uint8Array {
  const body = toRlp([
    quantity(receipt.status),
    quantity(receipt.cumulativeGasUsed),
    receipt.logsBloom,
    receipt.logs.map((l) => [l.address, l.topics, l.data]),
  ]);
  const type = Number(receipt.type);
  return hexToBytes(type === 0 ? body : `0x${type.toString(16).padStart(2, "0")}${body.slice(2)}`);
}

beforeAll(async () => {
  t = await startTestNode({ mining: { mode: "manual" } });
  const { wallet } = viemClients(t.url);
  const deploy = await wallet.deployContract({
    abi: TestToken.abi,
    bytecode: TestToken.bytecode,
    args: ["H", "H", 10n ** 24n],
    nonce: 0,
    gas: 2_000_000n,
  });
  await rpc(t.url, "evm_mine");
  const token = ((await rpc(t.url, "eth_getTransactionReceipt", [deploy])).result as { contractAddress: Hex })
    .contractAddress;
  for (let i = 0; i < 3; i++) {
    await wallet.sendTransaction({
      nonce: 1 + i,
      to: token,
      gas: 100_000n,
      data: encodeFunctionData({
        abi: TestToken.abi,
        functionName: "transfer",
        args: [devAccount(i + 1).address, 5n],
      }),
    });
  }
  await wallet.sendTransaction({
    nonce: 4,
    to: devAccount(9).address,
    value: 1n,
    type: "legacy",
    gasPrice: 5_000_000_000n,
    gas: 21_000n,
  });
  await rpc(t.url, "evm_mine");
});
afterAll(() => t.stop());

describe("block headers are Ethereum headers", () => {
  it("hash = keccak256(rlp(header)) for genesis and mined blocks", async () => {
    for (const tag of ["0x0", "0x1", "latest"]) {
      const block = (await rpc(t.url, "eth_getBlockByNumber", [tag, false])).result as RpcBlock;
      const fields: (Hex | undefined)[] = [
        block.parentHash,
        block.sha3Uncles,
        block.miner,
        block.stateRoot,
        block.transactionsRoot,
        block.receiptsRoot,
        block.logsBloom,
        quantity(block.difficulty),
        quantity(block.number),
        quantity(block.gasLimit),
        quantity(block.gasUsed),
        quantity(block.timestamp),
        block.extraData,
        block.mixHash,
        block.nonce,
        quantity(block.baseFeePerGas!),
        block.withdrawalsRoot!,
        quantity(block.blobGasUsed!),
        quantity(block.excessBlobGas!),
        block.parentBeaconBlockRoot!,
        block.requestsHash!,
      ];
      expect(keccak256(toRlp(fields as Hex[]))).toBe(block.hash);
    }
  });

  it("transactions root, receipts root and logs bloom are the real ones", async () => {
    const block = (await rpc(t.url, "eth_getBlockByNumber", ["latest", true])).result as RpcBlock;
    expect(block.transactions).toHaveLength(4);
    const txRoot = await trieRoot(block.transactions.map((tx) => hexToBytes(rawTransaction(tx))));
    expect(txRoot).toBe(block.transactionsRoot);
    const receipts = (await rpc(t.url, "eth_getBlockReceipts", ["latest"])).result as RpcReceipt[];
    expect(await trieRoot(receipts.map(rawReceipt))).toBe(block.receiptsRoot);
    const bloom = new Uint8Array(256);
    for (const r of receipts)
      hexToBytes(r.logsBloom).forEach((b, i) => {
        bloom[i]! |= b;
      });
    expect(`0x${Buffer.from(bloom).toString("hex")}`).toBe(block.logsBloom);
    expect(receipts.filter((r) => r.logs.length > 0)).toHaveLength(3);
  });

  it("the genesis state root of a plain geth genesis is the Merkle-Patricia root of the alloc", async () => {
    // Without the Strata sections (system contracts, consensus) genesis is the alloc alone.
    const { system: _system, consensus: _consensus, ...network } = loadNetwork("dev");
    const plain = await startTestNode({ network });
    const trie = await createMPT({ useKeyHashing: true });
    const emptyRoot = "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421";
    const emptyCode = "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470";
    for (const [address, account] of Object.entries(network.genesis.alloc)) {
      const value = toRlp(["0x", numberToHex(BigInt(account.balance)), emptyRoot, emptyCode]);
      await trie.put(hexToBytes(`0x${address}`), hexToBytes(value));
    }
    const genesis = (await rpc(plain.url, "eth_getBlockByNumber", ["0x0", false])).result as RpcBlock;
    await plain.stop();
    expect(`0x${Buffer.from(trie.root()).toString("hex")}`).toBe(genesis.stateRoot);
  });
});
