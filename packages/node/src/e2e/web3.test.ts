import { TestToken } from "@strata/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Web3 } from "web3";
import { startTestNode, type TestNode } from "../testing/test-node.js";
import { devAccount } from "./clients.js";

const KEY0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const KEY1 = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const TEN_THOUSAND = 10_000n * 10n ** 18n;
const SUPPLY = 5_000_000n * 10n ** 18n;
const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

let t: TestNode;
let web3: Web3;
let from: string;
let other: string;
let token: InstanceType<typeof web3.eth.Contract<typeof TestToken.abi>>;
let deployBlock: bigint;

interface Web3Failure {
  name?: string;
  message?: string;
  cause?: { name?: string; code?: number; message?: string; data?: string };
}

/** Awaits a promise (or web3 PromiEvent) that must reject and returns its rejection. */
async function rejection(pending: unknown): Promise<Web3Failure> {
  try {
    await pending;
  } catch (error) {
    return error as Web3Failure;
  }
  throw new Error("expected a rejection");
}

beforeAll(async () => {
  t = await startTestNode();
  web3 = new Web3(t.url);
  web3.setConfig({ transactionPollingInterval: 20, transactionReceiptPollingInterval: 20 });
  const account = web3.eth.accounts.privateKeyToAccount(KEY0);
  web3.eth.accounts.wallet.add(account);
  web3.eth.accounts.wallet.add(KEY1);
  from = account.address;
  other = web3.eth.accounts.wallet[1]!.address;
  token = await new web3.eth.Contract(TestToken.abi)
    .deploy({ data: TestToken.bytecode, arguments: ["Web3", "WEB", SUPPLY] })
    .send({ from });
  deployBlock = await web3.eth.getBlockNumber();
});

afterAll(async () => {
  await t?.stop();
});

describe("web3.js v4 against a dev node", () => {
  it("reads the chain id, the block number and balances", async () => {
    expect(await web3.eth.getChainId()).toBe(1337n);
    expect(await web3.eth.net.getId()).toBe(1337n);
    const height = await web3.eth.getBlockNumber();
    expect(typeof height).toBe("bigint");
    expect(height).toBeGreaterThanOrEqual(1n);
    expect(await web3.eth.getBalance(devAccount(9).address)).toBe(TEN_THOUSAND);
    expect(await web3.eth.getBalance(from, 0)).toBe(TEN_THOUSAND);
    expect(await web3.eth.getBalance(from)).toBeLessThan(TEN_THOUSAND);
  });

  it("derives the dev accounts from their keys", () => {
    expect(from).toBe(devAccount(0).address);
    expect(other).toBe(devAccount(1).address);
    expect(web3.eth.accounts.wallet).toHaveLength(2);
  });

  it("sends legacy and EIP-1559 transactions signed by the wallet", async () => {
    const to = devAccount(7).address;
    const nonce = await web3.eth.getTransactionCount(from);
    const legacy = await web3.eth.sendTransaction({
      from,
      to,
      value: 11n,
      type: 0,
      gasPrice: await web3.eth.getGasPrice(),
    });
    expect(legacy.status).toBe(1n);
    expect(legacy.type).toBe(0n);
    expect(legacy.gasUsed).toBe(21_000n);
    const dynamic = await web3.eth.sendTransaction({ from, to, value: 22n, type: 2 });
    expect(dynamic.status).toBe(1n);
    expect(dynamic.type).toBe(2n);
    expect(BigInt(dynamic.blockNumber)).toBeGreaterThan(BigInt(legacy.blockNumber));
    expect(await web3.eth.getTransactionCount(from)).toBe(nonce + 2n);
    expect(await web3.eth.getBalance(to)).toBe(TEN_THOUSAND + 33n);

    const tx0 = await web3.eth.getTransaction(legacy.transactionHash);
    expect(tx0.type).toBe(0n);
    expect(tx0.chainId).toBe(1337n);
    expect(tx0.nonce).toBe(nonce);
    expect(tx0.value).toBe(11n);
    expect([1337n * 2n + 35n, 1337n * 2n + 36n]).toContain(tx0.v);
    const tx2 = await web3.eth.getTransaction(dynamic.transactionHash);
    expect(tx2.type).toBe(2n);
    expect(tx2.from).toBe(from.toLowerCase());
    expect("maxFeePerGas" in tx2 ? tx2.maxFeePerGas : undefined).toBeGreaterThan(0n);

    const receipt = await web3.eth.getTransactionReceipt(dynamic.transactionHash);
    expect(receipt.status).toBe(1n);
    expect(receipt.transactionHash).toBe(dynamic.transactionHash);
    expect(receipt.effectiveGasPrice).toBeGreaterThan(0n);
  });

  it("sends from a second wallet account and fires the receipt event", async () => {
    const to = devAccount(6).address;
    const receipt = await new Promise<{ status: bigint; from: string }>((resolve, reject) => {
      web3.eth
        .sendTransaction({ from: other, to, value: 5n })
        .on("receipt", (r) => resolve({ status: r.status as bigint, from: r.from }))
        .catch(reject);
    });
    expect(receipt.status).toBe(1n);
    expect(receipt.from).toBe(other.toLowerCase());
    expect(await web3.eth.getBalance(to)).toBe(TEN_THOUSAND + 5n);
  });

  it("deploys the token and calls balanceOf", async () => {
    expect(token.options.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const code = await web3.eth.getCode(token.options.address!);
    expect(code).toBe(TestToken.deployedBytecode.toLowerCase());
    expect(await token.methods.balanceOf(from).call({}, deployBlock)).toBe(SUPPLY);
    expect(await token.methods.balanceOf(devAccount(9).address).call()).toBe(0n);
    expect(await token.methods.symbol().call()).toBe("WEB");
    expect(await token.methods.totalSupply().call()).toBe(SUPPLY);
  });

  it("transfers tokens and reads Transfer from the receipt and getPastEvents", async () => {
    const to = devAccount(3).address;
    const amount = 1234n * 10n ** 15n;
    const receipt = await token.methods.transfer(to, amount).send({ from });
    expect(receipt.status).toBe(1n);
    const event = receipt.events?.Transfer;
    expect(event).toBeDefined();
    expect(event?.returnValues.from).toBe(from);
    expect(event?.returnValues.to).toBe(to);
    expect(event?.returnValues.value).toBe(amount);
    expect(event?.raw?.topics[0]).toBe(TRANSFER_TOPIC);
    expect(receipt.logs).toHaveLength(1);
    expect(await token.methods.balanceOf(to).call()).toBe(amount);

    const past = await token.getPastEvents("Transfer", { fromBlock: 0, toBlock: "latest" });
    expect(past).toHaveLength(2);
    const [mint, transfer] = past as { returnValues: Record<string, unknown>; transactionHash?: string }[];
    expect(mint?.returnValues.from).toBe("0x0000000000000000000000000000000000000000");
    expect(mint?.returnValues.to).toBe(from);
    expect(mint?.returnValues.value).toBe(SUPPLY);
    expect(transfer?.transactionHash).toBe(receipt.transactionHash);
    const filtered = await token.getPastEvents("Transfer", {
      filter: { to },
      fromBlock: receipt.blockNumber,
      toBlock: receipt.blockNumber,
    });
    expect(filtered).toHaveLength(1);
    const none = await token.getPastEvents("Transfer", {
      filter: { to: devAccount(8).address },
      fromBlock: 0,
    });
    expect(none).toHaveLength(0);
  });

  it("surfaces the revert reason of a failing call", async () => {
    const error = await rejection(token.methods.fail("nope").call());
    expect(error).toMatchObject({
      name: "ContractExecutionError",
      cause: {
        name: "Eip838ExecutionError",
        code: 3,
        message: "execution reverted: nope",
        errorName: "Error",
        errorSignature: "Error(string)",
        errorArgs: { message: "nope" },
      },
    });
    expect(error.cause?.data).toMatch(/^0x08c379a0/);

    const custom = await rejection(token.methods.boom().call());
    expect(custom).toMatchObject({
      name: "ContractExecutionError",
      cause: {
        code: 3,
        data: `0x1167d8fb${42n.toString(16).padStart(64, "0")}`,
        errorName: "Boom",
        errorSignature: "Boom(uint256)",
        errorArgs: { code: 42n },
      },
    });
  });

  it("rejects a reverting transaction at estimation with its reason", async () => {
    const nonce = await web3.eth.getTransactionCount(from);
    const error = await rejection(token.methods.transfer(devAccount(2).address, SUPPLY * 2n).send({ from }));
    expect(error).toMatchObject({
      name: "ContractExecutionError",
      cause: { code: 3, message: "execution reverted: ERC20: transfer amount exceeds balance" },
    });
    expect(await web3.eth.getTransactionCount(from)).toBe(nonce);
  });

  it("estimates gas", async () => {
    expect(await web3.eth.estimateGas({ from, to: devAccount(5).address, value: 1n })).toBe(21_000n);
    const to = devAccount(5).address;
    const estimate = await token.methods.transfer(to, 10n).estimateGas({ from });
    expect(estimate).toBeGreaterThan(21_000n);
    const receipt = await token.methods.transfer(to, 10n).send({ from, gas: estimate.toString() });
    expect(receipt.status).toBe(1n);
    expect(estimate).toBeGreaterThanOrEqual(receipt.gasUsed);
    expect(estimate).toBeLessThanOrEqual((receipt.gasUsed * 1015n) / 1000n + 1n);
    const failing = await rejection(token.methods.fail("est").estimateGas({ from }));
    expect(failing).toMatchObject({ cause: { code: 3, message: "execution reverted: est" } });
  });

  it("reads the fee history", async () => {
    const latest = await web3.eth.getBlock("latest");
    const history = await web3.eth.getFeeHistory(4, "latest", [25, 75]);
    expect(history.oldestBlock).toBe(latest.number! - 3n);
    expect(history.baseFeePerGas).toHaveLength(5);
    expect(history.baseFeePerGas[3]).toBe(latest.baseFeePerGas);
    expect(history.gasUsedRatio).toHaveLength(4);
    expect(Number(history.gasUsedRatio[3])).toBeCloseTo(Number(latest.gasUsed) / Number(latest.gasLimit), 6);
    expect(history.reward).toHaveLength(4);
    for (const row of history.reward) {
      expect(row).toHaveLength(2);
      expect(BigInt(row[0]!)).toBeLessThanOrEqual(BigInt(row[1]!));
    }
    // eth_gasPrice is the next block's base fee plus the suggested tip, as in geth
    const tip = await web3.eth.getMaxPriorityFeePerGas();
    expect(await web3.eth.getGasPrice()).toBe(BigInt(history.baseFeePerGas[4]!) + tip);
  });

  it("reads the latest block with full transactions", async () => {
    const receipt = await web3.eth.sendTransaction({ from, to: devAccount(4).address, value: 1n });
    const block = await web3.eth.getBlock("latest", true);
    expect(block.number).toBe(receipt.blockNumber);
    expect(block.hash).toBe(receipt.blockHash);
    expect(block.transactions).toHaveLength(1);
    const tx = block.transactions[0];
    expect(typeof tx).toBe("object");
    if (typeof tx !== "object") throw new Error("expected a transaction object");
    expect(tx.hash).toBe(receipt.transactionHash);
    expect(tx.from).toBe(from.toLowerCase());
    expect(tx.value).toBe(1n);
    expect(tx.blockNumber).toBe(block.number);
    expect(typeof block.timestamp).toBe("bigint");
    expect(block.timestamp).toBeGreaterThan(BigInt(Math.floor(Date.now() / 1000)) - 120n);
    expect(block.baseFeePerGas).toBeGreaterThan(0n);
    expect(block.gasUsed).toBe(21_000n);
    const parent = await web3.eth.getBlock(block.number - 1n);
    expect(block.parentHash).toBe(parent.hash);
    const hashes = await web3.eth.getBlock("latest", false);
    expect(hashes.transactions).toEqual([receipt.transactionHash]);
  });
});
