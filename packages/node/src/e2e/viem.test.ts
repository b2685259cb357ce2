import { TestToken } from "@strata/contracts";
import {
  BaseError,
  ContractFunctionRevertedError,
  encodeFunctionData,
  parseEther,
  parseEventLogs,
  parseGwei,
  zeroAddress,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestNode, type TestNode } from "../testing/test-node.js";
import { devAccount, rpc, viemClients } from "./clients.js";

let t: TestNode;
let c: ReturnType<typeof viemClients>;
let token: `0x${string}`;
const SUPPLY = parseEther("1000000");
const recipient = devAccount(5).address;

function revertOf(error: unknown): ContractFunctionRevertedError {
  if (!(error instanceof BaseError)) throw error;
  const revert = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (!(revert instanceof ContractFunctionRevertedError)) throw error;
  return revert;
}

beforeAll(async () => {
  t = await startTestNode();
  c = viemClients(t.url);
  const hash = await c.wallet.deployContract({
    abi: TestToken.abi,
    bytecode: TestToken.bytecode,
    args: ["Test", "TST", SUPPLY],
  });
  const receipt = await c.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  token = receipt.contractAddress!;
});

afterAll(() => t.stop());

describe("viem against a dev node", () => {
  it("sees chain id 1337 and ten funded accounts", async () => {
    expect(await c.publicClient.getChainId()).toBe(1337);
    const balances = await Promise.all(
      Array.from({ length: 10 }, (_, i) => c.publicClient.getBalance({ address: devAccount(i).address })),
    );
    expect(balances.slice(1).every((b) => b === parseEther("10000"))).toBe(true);
    const accounts = await rpc(t.url, "eth_accounts");
    expect(accounts.result).toHaveLength(10);
  });

  it("reads the deployed ERC-20", async () => {
    const read = (functionName: "name" | "symbol" | "totalSupply") =>
      c.publicClient.readContract({ address: token, abi: TestToken.abi, functionName });
    expect(await read("name")).toBe("Test");
    expect(await read("symbol")).toBe("TST");
    expect(await read("totalSupply")).toBe(SUPPLY);
    const code = await c.publicClient.getCode({ address: token });
    expect(code?.length).toBeGreaterThan(100);
  });

  it("transfers and reads the Transfer event from the receipt and from getLogs", async () => {
    const amount = parseEther("12.5");
    const hash = await c.wallet.writeContract({
      address: token,
      abi: TestToken.abi,
      functionName: "transfer",
      args: [recipient, amount],
    });
    const receipt = await c.publicClient.waitForTransactionReceipt({ hash });
    const [event] = parseEventLogs({ abi: TestToken.abi, logs: receipt.logs, eventName: "Transfer" });
    expect(event?.args).toEqual({ from: c.wallet.account.address, to: recipient, value: amount });
    const logs = await c.publicClient.getContractEvents({
      address: token,
      abi: TestToken.abi,
      eventName: "Transfer",
      args: { to: recipient },
      fromBlock: 0n,
    });
    expect(logs.map((l) => l.transactionHash)).toContain(hash);
    const balance = await c.publicClient.readContract({
      address: token,
      abi: TestToken.abi,
      functionName: "balanceOf",
      args: [recipient],
    });
    expect(balance).toBe(amount);
  });

  it("surfaces revert reasons and custom errors from eth_call", async () => {
    const failing = await c.publicClient
      .readContract({
        address: token,
        abi: TestToken.abi,
        functionName: "fail",
        args: ["nope"],
        account: c.wallet.account,
      })
      .catch((e: unknown) => e);
    expect(revertOf(failing).reason).toBe("nope");
    const boom = await c.publicClient
      .readContract({ address: token, abi: TestToken.abi, functionName: "boom", account: c.wallet.account })
      .catch((e: unknown) => e);
    expect(revertOf(boom).data?.errorName).toBe("Boom");
    expect(revertOf(boom).data?.args).toEqual([42n]);
    const tooMuch = await c.publicClient
      .simulateContract({
        address: token,
        abi: TestToken.abi,
        functionName: "transfer",
        args: [recipient, SUPPLY * 2n],
        account: c.wallet.account,
      })
      .catch((e: unknown) => e);
    expect(revertOf(tooMuch).reason).toBe("ERC20: transfer amount exceeds balance");
  });

  it("answers reverts with code 3 and the revert data, as geth", async () => {
    const data = encodeFunctionData({ abi: TestToken.abi, functionName: "fail", args: ["why"] });
    const response = await rpc(t.url, "eth_call", [{ to: token, data }, "latest"]);
    expect(response.error?.code).toBe(3);
    expect(response.error?.message).toBe("execution reverted: why");
    expect(response.error?.data).toMatch(/^0x08c379a0/);
    const estimate = await rpc(t.url, "eth_estimateGas", [{ to: token, data, from: devAccount(0).address }]);
    expect(estimate.error?.code).toBe(3);
    expect(estimate.error?.message).toBe("execution reverted: why");
  });

  it("estimates gas that is always enough", async () => {
    const data = encodeFunctionData({
      abi: TestToken.abi,
      functionName: "transfer",
      args: [devAccount(7).address, 1n],
    });
    const gas = await c.publicClient.estimateGas({ account: c.wallet.account, to: token, data });
    expect(gas).toBeGreaterThan(21_000n);
    const hash = await c.wallet.sendTransaction({ to: token, data, gas });
    const receipt = await c.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(receipt.gasUsed).toBeLessThanOrEqual(gas);
    expect(Number(gas - receipt.gasUsed) / Number(gas)).toBeLessThan(0.1);
    expect(await c.publicClient.estimateGas({ account: c.wallet.account, to: recipient, value: 1n })).toBe(
      21_000n,
    );
  });

  it("mines every transaction type", async () => {
    const to = devAccount(8).address;
    const legacy = await c.wallet.sendTransaction({
      to,
      value: 1n,
      type: "legacy",
      gasPrice: parseGwei("3"),
    });
    const eip2930 = await c.wallet.sendTransaction({
      to: token,
      type: "eip2930",
      gasPrice: parseGwei("3"),
      data: encodeFunctionData({ abi: TestToken.abi, functionName: "transfer", args: [to, 1n] }),
      accessList: [{ address: token, storageKeys: [] }],
    });
    const eip1559 = await c.wallet.sendTransaction({ to, value: 2n, type: "eip1559" });
    const receipts = await Promise.all(
      [legacy, eip2930, eip1559].map((hash) => c.publicClient.waitForTransactionReceipt({ hash })),
    );
    expect(receipts.map((r) => r.type)).toEqual(["legacy", "eip2930", "eip1559"]);
    expect(receipts.every((r) => r.status === "success")).toBe(true);
    const tx = await c.publicClient.getTransaction({ hash: eip2930 });
    expect(tx.accessList).toEqual([{ address: token, storageKeys: [] }]);
  });

  it("mines an EIP-7702 transaction that delegates an account's code", async () => {
    const authority = devAccount(3);
    const { wallet: authorityWallet } = viemClients(t.url, 3);
    const authorization = await authorityWallet.signAuthorization({
      account: authority,
      contractAddress: token,
      executor: "self",
    });
    const hash = await authorityWallet.sendTransaction({
      authorizationList: [authorization],
      to: devAccount(9).address,
    });
    const receipt = await c.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.type).toBe("eip7702");
    expect(receipt.status).toBe("success");
    const code = await c.publicClient.getCode({ address: authority.address });
    expect(code).toBe(`0xef0100${token.slice(2).toLowerCase()}`);
    const tx = await c.publicClient.getTransaction({ hash });
    expect(tx.authorizationList?.[0]?.address.toLowerCase()).toBe(token.toLowerCase());
  });

  it("calls the ecrecover precompile", async () => {
    const account = devAccount(0);
    const hash = `0x${"ab".repeat(32)}` as const;
    const signature = await account.sign({ hash });
    const r = signature.slice(2, 66);
    const s = signature.slice(66, 130);
    const v = Number.parseInt(signature.slice(130, 132), 16);
    const input = `${hash}${v.toString(16).padStart(64, "0")}${r}${s}` as `0x${string}`;
    const result = await c.publicClient.call({
      to: "0x0000000000000000000000000000000000000001",
      data: input,
    });
    expect(result.data?.slice(-40)).toBe(account.address.slice(2).toLowerCase());
  });

  it("serves blocks with full transactions and block receipts", async () => {
    const block = await c.publicClient.getBlock({ includeTransactions: true });
    expect(block.transactions.length).toBeGreaterThan(0);
    const receipts = await rpc(t.url, "eth_getBlockReceipts", ["latest"]);
    expect((receipts.result as unknown[]).length).toBe(block.transactions.length);
    const count = await c.publicClient.getBlockTransactionCount({ blockNumber: block.number });
    expect(count).toBe(block.transactions.length);
    const byIndex = await rpc(t.url, "eth_getTransactionByBlockNumberAndIndex", [
      `0x${block.number.toString(16)}`,
      "0x0",
    ]);
    expect((byIndex.result as { hash: string }).hash).toBe(block.transactions[0]!.hash);
    expect(await rpc(t.url, "eth_getBlockByNumber", ["0xffffff", false])).toMatchObject({ result: null });
  });

  it("reports fees: gas price, priority fee and fee history", async () => {
    const gasPrice = await c.publicClient.getGasPrice();
    const block = await c.publicClient.getBlock();
    expect(gasPrice).toBeGreaterThan(block.baseFeePerGas!);
    const history = await c.publicClient.getFeeHistory({ blockCount: 3, rewardPercentiles: [25, 75] });
    expect(history.baseFeePerGas).toHaveLength(4);
    expect(history.reward).toHaveLength(3);
    expect(history.gasUsedRatio.every((r) => r >= 0 && r <= 1)).toBe(true);
    const fees = await c.publicClient.estimateFeesPerGas();
    expect(fees.maxFeePerGas).toBeGreaterThan(0n);
  });

  it("creates access lists", async () => {
    const data = encodeFunctionData({ abi: TestToken.abi, functionName: "transfer", args: [recipient, 1n] });
    const result = await c.publicClient.createAccessList({ account: c.wallet.account, to: token, data });
    expect(result.gasUsed).toBeGreaterThan(21_000n);
    // The callee's touched slots are listed (the two balanceOf entries), as geth does.
    expect(result.accessList).toHaveLength(1);
    expect(result.accessList[0]?.address.toLowerCase()).toBe(token.toLowerCase());
    expect(result.accessList[0]?.storageKeys).toHaveLength(2);
    const viaHelper = await rpc(t.url, "eth_createAccessList", [
      { from: devAccount(0).address, to: zeroAddress, data: "0x" },
    ]);
    expect(viaHelper.result).toMatchObject({ accessList: [] });
  });

  it("signs with unlocked dev accounts through eth_sendTransaction", async () => {
    const from = devAccount(2).address;
    const response = await rpc(t.url, "eth_sendTransaction", [{ from, to: recipient, value: "0x5" }]);
    const hash = response.result as `0x${string}`;
    const receipt = await c.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.from.toLowerCase()).toBe(from.toLowerCase());
    const unknown = await rpc(t.url, "eth_sendTransaction", [{ from: zeroAddress, to: recipient }]);
    expect(unknown.error).toEqual({ code: -32000, message: "unknown account" });
  });

  it("reads archive state at past blocks", async () => {
    const before = await c.publicClient.getBlockNumber();
    const balanceBefore = await c.publicClient.getBalance({ address: recipient });
    const hash = await c.wallet.sendTransaction({ to: recipient, value: parseEther("1") });
    await c.publicClient.waitForTransactionReceipt({ hash });
    expect(await c.publicClient.getBalance({ address: recipient })).toBe(balanceBefore + parseEther("1"));
    expect(await c.publicClient.getBalance({ address: recipient, blockNumber: before })).toBe(balanceBefore);
    const tokenBalanceAtGenesisPlus1 = await c.publicClient.readContract({
      address: token,
      abi: TestToken.abi,
      functionName: "balanceOf",
      args: [recipient],
      blockNumber: 1n,
    });
    expect(tokenBalanceAtGenesisPlus1).toBe(0n);
    const slot = await c.publicClient.getStorageAt({ address: token, slot: "0x2", blockNumber: 1n });
    expect(BigInt(slot!)).toBe(SUPPLY);
  });
});
