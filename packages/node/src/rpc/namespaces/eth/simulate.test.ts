import { TestToken } from "@strata/contracts";
import { encodeFunctionData, type Hex, keccak256, pad, parseEther, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccount, rpc, viemClients } from "../../../e2e/clients.js";
import { startTestNode, type TestNode } from "../../../testing/test-node.js";

type SimCall = {
  returnData: Hex;
  logs: { address: Hex; topics: Hex[]; data: Hex; blockHash: Hex; logIndex: Hex; transactionIndex: Hex }[];
  gasUsed: Hex;
  maxUsedGas: Hex;
  status: Hex;
  error?: { code: number; message: string; data?: Hex };
};
type SimBlock = {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  timestamp: Hex;
  gasUsed: Hex;
  baseFeePerGas: Hex;
  miner: Hex;
  stateRoot: Hex;
  transactions: (Hex | { from: Hex; hash: Hex; nonce: Hex })[];
  calls: SimCall[];
};

const stranger = "0x1000000000000000000000000000000000000001";
const receiver = "0x2000000000000000000000000000000000000002";
const contract = "0x3000000000000000000000000000000000000003";
// Runtime code: returns the word in storage slot 0 (SLOAD 0, MSTORE 0, RETURN 32 bytes).
const RETURN_SLOT0 = "0x60005460005260206000f3";
// Runtime code: reverts with Error("no") (the ABI encoding of a revert reason).
const REVERT_NO =
  "0x7f08c379a000000000000000000000000000000000000000000000000000000000600052602060045260026024527f6e6f00000000000000000000000000000000000000000000000000000000000060445260646000fd";

async function simulate(url: string, options: unknown, at: unknown = "latest") {
  return rpc(url, "eth_simulateV1", [options, at]);
}

async function simulated(url: string, options: unknown, at: unknown = "latest"): Promise<SimBlock[]> {
  const response = await simulate(url, options, at);
  expect(response.error, JSON.stringify(response.error)).toBeUndefined();
  return response.result as SimBlock[];
}

describe("eth_simulateV1", () => {
  let t: TestNode;
  let head: { number: Hex; hash: Hex; timestamp: Hex };

  beforeAll(async () => {
    t = await startTestNode();
    const { wallet, publicClient } = viemClients(t.url);
    const hash = await wallet.sendTransaction({ to: receiver, value: 1n });
    await publicClient.waitForTransactionReceipt({ hash });
    head = (await rpc(t.url, "eth_getBlockByNumber", ["latest", false])).result as typeof head;
  });

  afterAll(() => t?.stop());

  it("chains simulated blocks on the base block with state overrides carried forward", async () => {
    const blocks = await simulated(t.url, {
      blockStateCalls: [
        {
          stateOverrides: { [stranger]: { balance: toHex(parseEther("1")) } },
          calls: [{ from: stranger, to: receiver, value: toHex(1000n) }],
        },
        { calls: [{ from: stranger, to: receiver, value: toHex(1000n) }] },
      ],
    });
    expect(blocks).toHaveLength(2);
    const [first, second] = blocks as [SimBlock, SimBlock];
    expect(BigInt(first.number)).toBe(BigInt(head.number) + 1n);
    expect(first.parentHash).toBe(head.hash);
    expect(second.parentHash).toBe(first.hash);
    expect(BigInt(first.timestamp)).toBe(BigInt(head.timestamp) + 12n);
    expect(BigInt(second.timestamp)).toBe(BigInt(head.timestamp) + 24n);
    // Outside validation mode the base fee is zero and nonces are taken from the state.
    expect(first.baseFeePerGas).toBe("0x0");
    for (const block of blocks) {
      expect(block.calls).toEqual([
        { returnData: "0x", logs: [], gasUsed: "0x5208", maxUsedGas: "0x5208", status: "0x1" },
      ]);
      expect(block.gasUsed).toBe("0x5208");
      expect(block.transactions).toHaveLength(1);
    }
    expect(first.stateRoot).not.toBe(second.stateRoot);
    // The chain itself is untouched.
    expect((await rpc(t.url, "eth_getBalance", [stranger, "latest"])).result).toBe("0x0");
    expect((await rpc(t.url, "eth_blockNumber")).result).toBe(head.number);
  });

  it("answers contract calls with code and storage overrides", async () => {
    const word = pad("0x2a", { size: 32 });
    const blocks = await simulated(t.url, {
      blockStateCalls: [
        {
          stateOverrides: {
            [contract]: { code: RETURN_SLOT0, stateDiff: { [pad("0x0", { size: 32 })]: word } },
          },
          calls: [{ to: contract }],
        },
        {
          stateOverrides: { [contract]: { state: {} } },
          calls: [{ to: contract }],
        },
      ],
    });
    expect(blocks[0]!.calls[0]!.returnData).toBe(word);
    expect(blocks[1]!.calls[0]!.returnData).toBe(pad("0x0", { size: 32 }));
  });

  it("reports reverts per call, with geth's code 3 and the revert data, and goes on", async () => {
    const blocks = await simulated(t.url, {
      blockStateCalls: [
        {
          stateOverrides: { [contract]: { code: REVERT_NO } },
          calls: [{ to: contract }, { from: stranger, to: receiver }],
        },
      ],
    });
    const [reverted, next] = blocks[0]!.calls as [SimCall, SimCall];
    expect(reverted.status).toBe("0x0");
    expect(reverted.error).toMatchObject({ code: 3, message: "execution reverted: no" });
    expect(reverted.error?.data).toMatch(/^0x08c379a0/);
    expect(reverted.returnData).toBe("0x");
    expect(next.status).toBe("0x1");
  });

  it("fills gaps in block numbers with empty blocks 12 seconds apart", async () => {
    const target = BigInt(head.number) + 4n;
    const blocks = await simulated(t.url, {
      blockStateCalls: [
        { blockOverrides: { number: toHex(target), time: toHex(BigInt(head.timestamp) + 100n) } },
      ],
    });
    expect(blocks.map((b) => BigInt(b.number))).toEqual([1n, 2n, 3n, 4n].map((d) => BigInt(head.number) + d));
    expect(blocks.slice(0, 3).map((b) => BigInt(b.timestamp) - BigInt(head.timestamp))).toEqual([
      12n,
      24n,
      36n,
    ]);
    expect(BigInt(blocks[3]!.timestamp)).toBe(BigInt(head.timestamp) + 100n);
    expect(blocks.every((b) => b.calls.length === 0 && b.transactions.length === 0)).toBe(true);
  });

  it("applies block overrides and serves simulated block hashes to BLOCKHASH", async () => {
    const miner = "0x4000000000000000000000000000000000000004";
    // Runtime code: BLOCKHASH(NUMBER - 1) returned as one word.
    const blockhashOfParent = "0x600143034060005260206000f3";
    const blocks = await simulated(t.url, {
      blockStateCalls: [
        { blockOverrides: { feeRecipient: miner, baseFeePerGas: "0x7" } },
        {
          stateOverrides: { [contract]: { code: blockhashOfParent } },
          calls: [{ to: contract }],
        },
      ],
    });
    expect(blocks[0]!.miner).toBe(miner);
    expect(blocks[0]!.baseFeePerGas).toBe("0x7");
    expect(blocks[1]!.calls[0]!.returnData).toBe(blocks[0]!.hash);
  });

  it("returns full transactions with the caller as sender, and hashes that name them", async () => {
    const blocks = await simulated(t.url, {
      blockStateCalls: [
        {
          calls: [
            { from: stranger, to: receiver },
            { from: receiver, to: stranger },
          ],
        },
      ],
      returnFullTransactions: true,
    });
    const txs = blocks[0]!.transactions as { from: Hex; hash: Hex; nonce: Hex }[];
    expect(txs.map((tx) => tx.from)).toEqual([stranger, receiver]);
    expect(new Set(txs.map((tx) => tx.hash)).size).toBe(2);
    const hashesOnly = await simulated(t.url, {
      blockStateCalls: [
        {
          calls: [
            { from: stranger, to: receiver },
            { from: receiver, to: stranger },
          ],
        },
      ],
    });
    expect(hashesOnly[0]!.transactions).toEqual(txs.map((tx) => tx.hash));
  });

  it("traces ether transfers as ERC-7528 Transfer logs, mixed with the contract's own logs", async () => {
    const { wallet, publicClient } = viemClients(t.url);
    const deploy = await wallet.deployContract({
      abi: TestToken.abi,
      bytecode: TestToken.bytecode,
      args: ["Sim", "SIM", 1000n],
    });
    const token = (await publicClient.waitForTransactionReceipt({ hash: deploy })).contractAddress!;
    const owner = devAccount(0).address.toLowerCase() as Hex;
    const transfer = encodeFunctionData({
      abi: TestToken.abi,
      functionName: "transfer",
      args: [receiver, 5n],
    });
    const blocks = await simulated(t.url, {
      blockStateCalls: [
        {
          calls: [
            { from: owner, to: receiver, value: "0x3e8" },
            { from: owner, to: token, input: transfer },
          ],
        },
      ],
      traceTransfers: true,
    });
    const [eth, erc20] = blocks[0]!.calls as [SimCall, SimCall];
    const transferTopic = keccak256(new TextEncoder().encode("Transfer(address,address,uint256)"));
    expect(eth.logs).toHaveLength(1);
    expect(eth.logs[0]).toMatchObject({
      address: "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
      topics: [transferTopic, pad(owner, { size: 32 }), pad(receiver, { size: 32 })],
      data: pad("0x3e8", { size: 32 }),
      blockHash: blocks[0]!.hash,
      logIndex: "0x0",
      transactionIndex: "0x0",
    });
    expect(erc20.logs).toHaveLength(1);
    expect(erc20.logs[0]).toMatchObject({
      address: token.toLowerCase(),
      logIndex: "0x1",
      transactionIndex: "0x1",
    });
    const untraced = await simulated(t.url, {
      blockStateCalls: [{ calls: [{ from: owner, to: receiver, value: "0x3e8" }] }],
    });
    expect(untraced[0]!.calls[0]!.logs).toEqual([]);
  });

  it("validation mode checks nonces, funds and base fee with geth's codes", async () => {
    const cases: [unknown, number][] = [
      [{ from: stranger, to: receiver, nonce: "0x5", maxFeePerGas: "0x77359400" }, -38011],
      [{ from: stranger, to: receiver, maxFeePerGas: "0x77359400", gas: "0x1" }, -38013],
      [{ from: stranger, to: receiver, value: "0x1", maxFeePerGas: "0x0" }, -38012],
      [{ from: stranger, to: receiver, value: "0x1", maxFeePerGas: "0x77359400" }, -38014],
    ];
    for (const [call, code] of cases) {
      const response = await simulate(t.url, { blockStateCalls: [{ calls: [call] }], validation: true });
      expect(response.error?.code, JSON.stringify(response.error)).toBe(code);
    }
    const ok = await simulated(t.url, {
      blockStateCalls: [
        {
          stateOverrides: { [stranger]: { balance: toHex(parseEther("1")) } },
          calls: [{ from: stranger, to: receiver, maxFeePerGas: "0x77359400" }],
        },
      ],
      validation: true,
    });
    expect(BigInt(ok[0]!.baseFeePerGas)).toBeGreaterThan(0n);
    expect(ok[0]!.calls[0]!.status).toBe("0x1");
  });

  it("refuses malformed chains and requests with geth's codes", async () => {
    const next = BigInt(head.number) + 1n;
    const cases: [unknown, number][] = [
      [{ blockStateCalls: [] }, -32602],
      [{ blockStateCalls: [{ blockOverrides: { number: head.number } }] }, -38020],
      [
        {
          blockStateCalls: [
            { blockOverrides: { number: toHex(next + 2n) } },
            { blockOverrides: { number: toHex(next) } },
          ],
        },
        -38020,
      ],
      [{ blockStateCalls: [{ blockOverrides: { time: head.timestamp } }] }, -38021],
      [{ blockStateCalls: [{ blockOverrides: { number: toHex(next + 300n) } }] }, -38026],
      [{ blockStateCalls: Array.from({ length: 257 }, () => ({})) }, -38026],
      [
        {
          blockStateCalls: [
            {
              blockOverrides: { gasLimit: "0x5208" },
              calls: [{ to: receiver }, { to: receiver, gas: "0x5208" }],
            },
          ],
        },
        -38015,
      ],
      [
        {
          blockStateCalls: [
            { blockOverrides: { gasLimit: "0x5208" }, calls: [{ to: receiver }, { to: receiver }] },
          ],
        },
        -38013,
      ],
      [{ blockStateCalls: [{ stateOverrides: { [receiver]: { state: {}, stateDiff: {} } } }] }, -32000],
      [
        { blockStateCalls: [{ stateOverrides: { [receiver]: { movePrecompileToAddress: stranger } } }] },
        -32000,
      ],
      [{ blockStateCalls: "nope" }, -32602],
      [
        {
          blockStateCalls: [{ calls: [{ to: receiver, maxFeePerGas: "0x1", maxPriorityFeePerGas: "0x2" }] }],
        },
        -32000,
      ],
    ];
    for (const [options, code] of cases) {
      const response = await simulate(t.url, options);
      expect(
        response.error?.code,
        `${JSON.stringify(options).slice(0, 120)}: ${JSON.stringify(response.error)}`,
      ).toBe(code);
    }
    expect((await simulate(t.url, { blockStateCalls: [{}] }, "0x999")).error).toMatchObject({
      code: -32000,
      message: "header not found",
    });
  });

  it("lets contracts send calls and runs fee-less calls at a zero base fee, as geth", async () => {
    const blocks = await simulated(t.url, {
      blockStateCalls: [
        {
          blockOverrides: { baseFeePerGas: "0xa" },
          stateOverrides: { [contract]: { code: RETURN_SLOT0, balance: "0x3e8" } },
          calls: [{ from: contract, to: receiver, value: "0x1" }],
        },
      ],
    });
    expect(blocks[0]!.baseFeePerGas).toBe("0xa");
    expect(blocks[0]!.calls[0]).toMatchObject({ status: "0x1", gasUsed: "0x5208" });
  });

  it("traces the balance a self-destructing contract sends", async () => {
    // Runtime code: SELFDESTRUCT to the address 0x02...02.
    const destruct = `0x73${receiver.slice(2)}ff`;
    const blocks = await simulated(t.url, {
      blockStateCalls: [
        { stateOverrides: { [contract]: { code: destruct, balance: "0x64" } }, calls: [{ to: contract }] },
      ],
      traceTransfers: true,
    });
    expect(blocks[0]!.calls[0]!.logs).toMatchObject([
      {
        address: "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
        topics: [expect.any(String), pad(contract, { size: 32 }), pad(receiver, { size: 32 })],
        data: pad("0x64", { size: 32 }),
      },
    ]);
  });

  it("numbers logs among all logs emitted in the block, reverted ones included, as geth", async () => {
    const logThenRevert = "0x5000000000000000000000000000000000000011";
    const logger = "0x5000000000000000000000000000000000000012";
    const staticCaller = "0x5000000000000000000000000000000000000013";
    const blocks = await simulated(t.url, {
      blockStateCalls: [
        {
          stateOverrides: {
            // LOG0, then REVERT.
            [logThenRevert]: { code: "0x60006000a060006000fd" },
            // LOG0, then STOP.
            [logger]: { code: "0x60006000a000" },
            // STATICCALL the logger (its LOG0 fails there and is never emitted), then STOP.
            [staticCaller]: { code: `0x600060006000600073${logger.slice(2)}5afa00` },
          },
          calls: [{ to: logThenRevert }, { to: staticCaller }, { to: logger }],
        },
      ],
    });
    const [reverted, viaStatic, logged] = blocks[0]!.calls as [SimCall, SimCall, SimCall];
    expect(reverted.status).toBe("0x0");
    expect(reverted.logs).toEqual([]);
    expect(viaStatic.status).toBe("0x1");
    expect(viaStatic.logs).toEqual([]);
    expect(logged.logs.map((log) => [log.address, log.logIndex, log.transactionIndex])).toEqual([
      [logger, "0x1", "0x2"],
    ]);
  });

  it("moves a precompile to another address", async () => {
    const sha256 = "0x0000000000000000000000000000000000000002";
    const moved = "0x5000000000000000000000000000000000000005";
    const blocks = await simulated(t.url, {
      blockStateCalls: [
        {
          stateOverrides: { [sha256]: { movePrecompileToAddress: moved } },
          calls: [
            { to: moved, input: "0x" },
            { to: sha256, input: "0x" },
          ],
        },
      ],
    });
    const [atMoved, atOriginal] = blocks[0]!.calls as [SimCall, SimCall];
    // SHA-256 of the empty string, now served at the new address; the old address is plain.
    expect(atMoved.returnData).toBe("0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(atOriginal.returnData).toBe("0x");
  });

  it("keeps the fork's precompile addresses warm after moving a precompile, as geth", async () => {
    const ecrecover = "0x0000000000000000000000000000000000000001";
    const moved = "0x5000000000000000000000000000000000000123";
    // EXTCODEHASH of the address, POP, STOP: 100 gas for a warm address, 2600 for a cold one.
    const probe = (address: string) => `0x73${address.slice(2)}3f5000`;
    const probeOld = "0x5000000000000000000000000000000000000021";
    const probeNew = "0x5000000000000000000000000000000000000022";
    const blocks = await simulated(t.url, {
      blockStateCalls: [
        {
          stateOverrides: {
            [ecrecover]: { movePrecompileToAddress: moved },
            [probeOld]: { code: probe(ecrecover) },
            [probeNew]: { code: probe(moved) },
          },
          calls: [{ to: probeOld }, { to: probeNew }],
        },
      ],
    });
    const [atOld, atNew] = blocks[0]!.calls as [SimCall, SimCall];
    expect(BigInt(atOld.gasUsed)).toBe(21_000n + 3n + 100n + 2n);
    expect(BigInt(atNew.gasUsed)).toBe(21_000n + 3n + 2600n + 2n);
  });

  it("wraps the largest nonce to zero outside validation mode and refuses it in validation mode", async () => {
    const maxed = "0x5000000000000000000000000000000000000031";
    const request = (validation: boolean) => ({
      blockStateCalls: [
        {
          stateOverrides: { [maxed]: { nonce: "0xffffffffffffffff" } },
          calls: [
            { from: maxed, to: receiver },
            { from: maxed, to: receiver },
          ],
        },
      ],
      returnFullTransactions: true,
      validation,
    });
    const blocks = await simulated(t.url, request(false));
    const txs = blocks[0]!.transactions as { nonce: Hex }[];
    expect(txs.map((tx) => tx.nonce)).toEqual(["0xffffffffffffffff", "0x0"]);
    expect(blocks[0]!.calls.map((call) => call.status)).toEqual(["0x1", "0x1"]);
    const refused = await simulate(t.url, request(true));
    expect(refused.error?.code).toBe(-32603);
    expect(refused.error?.message).toMatch(/^err: nonce has max value: address /);
  });

  it("runs calls with blob hashes as blob transactions, with the overridden blob base fee", async () => {
    const blobber = "0x5000000000000000000000000000000000000041";
    // Returns BLOBBASEFEE.
    const blobBaseFeeReader = "0x5000000000000000000000000000000000000042";
    const blobHash = "0x010657f37554c781402a22917dee2f75def7ab966d7b770905398eba3c444014";
    const blocks = await simulated(t.url, {
      blockStateCalls: [
        {
          blockOverrides: { baseFeePerGas: "0xf", blobBaseFee: "0x7" },
          stateOverrides: {
            [blobber]: { balance: "0x3b9aca00" },
            [blobBaseFeeReader]: { code: "0x4a60005260206000f3" },
          },
          calls: [
            {
              from: blobber,
              to: blobBaseFeeReader,
              maxFeePerGas: "0x10",
              maxFeePerBlobGas: "0xa",
              blobVersionedHashes: [blobHash],
            },
          ],
        },
      ],
      validation: true,
      returnFullTransactions: true,
    });
    const block = blocks[0]! as SimBlock & { blobGasUsed: Hex };
    expect(block.blobGasUsed).toBe("0x20000");
    const tx = block.transactions[0] as unknown as {
      type: Hex;
      blobVersionedHashes: Hex[];
      maxFeePerBlobGas: Hex;
    };
    expect([tx.type, tx.blobVersionedHashes, tx.maxFeePerBlobGas]).toEqual(["0x3", [blobHash], "0xa"]);
    expect(block.calls[0]!.returnData).toBe(pad("0x7", { size: 32 }));
  });

  it("moving precompiles leaves the state untouched, even two onto the same address", async () => {
    const target = "0x5000000000000000000000000000000000000051";
    const [plain] = await simulated(t.url, { blockStateCalls: [{}] });
    const [moved] = await simulated(t.url, {
      blockStateCalls: [
        {
          stateOverrides: {
            "0x0000000000000000000000000000000000000001": { movePrecompileToAddress: target },
            "0x0000000000000000000000000000000000000002": { movePrecompileToAddress: target },
          },
        },
      ],
    });
    expect(moved!.stateRoot).toBe(plain!.stateRoot);
    expect(moved!.hash).toBe(plain!.hash);
  });

  it("leaves the node producing blocks normally afterwards", async () => {
    const { wallet, publicClient } = viemClients(t.url);
    const hash = await wallet.sendTransaction({ to: receiver, value: 2n });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    const block = (await rpc(t.url, "debug_getRawHeader", [toHex(receipt.blockNumber)])).result as Hex;
    expect(keccak256(block)).toBe(receipt.blockHash);
  });
});
