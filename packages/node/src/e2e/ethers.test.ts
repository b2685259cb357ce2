import { TestToken } from "@strata/contracts";
import {
  Contract,
  ContractFactory,
  HDNodeWallet,
  JsonRpcProvider,
  Mnemonic,
  parseEther,
  parseUnits,
  Wallet,
} from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestNode, type TestNode } from "../testing/test-node.js";
import { DEV_MNEMONIC } from "./clients.js";

let t: TestNode;
let provider: JsonRpcProvider;
let signer: Wallet;
let token: Contract;

function devWallet(index: number): Wallet {
  const node = HDNodeWallet.fromMnemonic(Mnemonic.fromPhrase(DEV_MNEMONIC), `m/44'/60'/0'/0/${index}`);
  return new Wallet(node.privateKey, provider);
}

beforeAll(async () => {
  t = await startTestNode();
  // cacheTimeout -1: ethers otherwise reuses identical answers (nonces, blocks) for 250 ms, which instant mining outpaces.
  provider = new JsonRpcProvider(t.url, 1337, {
    staticNetwork: true,
    polling: true,
    pollingInterval: 20,
    cacheTimeout: -1,
  });
  signer = devWallet(0);
  const factory = new ContractFactory(TestToken.abi, TestToken.bytecode, signer);
  const deployed = await factory.deploy("Ethers", "ETH5", parseEther("1000"));
  await deployed.waitForDeployment();
  token = new Contract(await deployed.getAddress(), TestToken.abi, signer);
});

afterAll(async () => {
  provider.destroy();
  await t.stop();
});

describe("ethers v6 against a dev node", () => {
  it("reads network, balances and blocks", async () => {
    const network = await provider.getNetwork();
    expect(network.chainId).toBe(1337n);
    expect(await provider.getBalance(devWallet(9).address)).toBe(parseEther("10000"));
    const block = await provider.getBlock("latest");
    expect(block?.number).toBeGreaterThan(0);
    expect(block?.hash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("transfers tokens and parses Transfer events from the receipt", async () => {
    const to = devWallet(4).address;
    const tx = await token.getFunction("transfer")(to, parseEther("3"));
    const receipt = await tx.wait();
    expect(receipt.status).toBe(1);
    const parsed = receipt.logs.map((log: { topics: string[]; data: string }) =>
      token.interface.parseLog(log),
    );
    const transfer = parsed.find((p: { name: string } | null) => p?.name === "Transfer");
    expect(transfer.args.to).toBe(to);
    expect(transfer.args.value).toBe(parseEther("3"));
    expect(await token.getFunction("balanceOf")(to)).toBe(parseEther("3"));
    const events = await token.queryFilter(token.filters.Transfer!(null, to), 0, "latest");
    expect(events).toHaveLength(1);
  });

  it("surfaces revert reasons and custom errors as ethers does", async () => {
    const reason = await token
      .getFunction("fail")
      .staticCall("bad things")
      .catch((e: unknown) => e);
    expect(reason).toMatchObject({ code: "CALL_EXCEPTION", reason: "bad things" });
    const custom = (await token
      .getFunction("boom")
      .staticCall()
      .catch((e: unknown) => e)) as {
      code: string;
      revert: { name: string; args: unknown[] };
    };
    expect(custom.code).toBe("CALL_EXCEPTION");
    expect(custom.revert.name).toBe("Boom");
    expect([...custom.revert.args]).toEqual([42n]);
    const estimate = await token
      .getFunction("fail")
      .estimateGas("est")
      .catch((e: unknown) => e);
    expect(estimate).toMatchObject({ code: "CALL_EXCEPTION", reason: "est" });
  });

  it("sends legacy, EIP-2930 and EIP-1559 transactions", async () => {
    const to = devWallet(6).address;
    const before = await provider.getBalance(to);
    const sent = [
      await signer.sendTransaction({ to, value: 1n, type: 0, gasPrice: parseUnits("5", "gwei") }),
      await signer.sendTransaction({
        to,
        value: 2n,
        type: 1,
        gasPrice: parseUnits("5", "gwei"),
        accessList: [],
      }),
      await signer.sendTransaction({ to, value: 3n, type: 2 }),
    ];
    const receipts = await Promise.all(sent.map((tx) => tx.wait()));
    expect(receipts.map((r) => r?.type)).toEqual([0, 1, 2]);
    expect(await provider.getBalance(to)).toBe(before + 6n);
    const fetched = await provider.getTransaction(sent[0]!.hash);
    expect(fetched?.chainId).toBe(1337n);
    const fee = await provider.getFeeData();
    expect(fee.maxFeePerGas).toBeGreaterThan(0n);
  });

  it("reports nonce errors with geth's message", async () => {
    const nonce = await provider.getTransactionCount(signer.address);
    const stale = await signer
      .sendTransaction({ to: signer.address, nonce: nonce - 1 })
      .catch((e: unknown) => e);
    expect(String((stale as Error).message)).toContain("nonce too low");
  });
});
