import { encodeErrorResult } from "viem";
import { describe, expect, it } from "vitest";
import { TestToken } from "./artifacts.js";
import { testTokenCreationCode } from "./deploy.js";
import { RevertError, TestEvm, testAccount } from "./testing/evm.js";

const deployer = testAccount(1);
const alice = testAccount(2);
const bob = testAccount(3);
const abi = TestToken.abi;

async function setup() {
  const evm = await TestEvm.create();
  const address = await evm.deploy(
    testTokenCreationCode({ name: "Test", symbol: "TST", initialSupply: 1_000n }),
    deployer,
  );
  return { evm, address };
}

describe("TestToken", () => {
  it("mints the initial supply to the deployer with 18 decimals", async () => {
    const { evm, address } = await setup();
    expect(await evm.read({ address, abi, functionName: "decimals" })).toBe(18);
    expect(await evm.read({ address, abi, functionName: "name" })).toBe("Test");
    expect(await evm.read({ address, abi, functionName: "symbol" })).toBe("TST");
    expect(await evm.read({ address, abi, functionName: "totalSupply" })).toBe(1_000n);
    expect(await evm.read({ address, abi, functionName: "balanceOf", args: [deployer] })).toBe(1_000n);
  });

  it("transfers and emits Transfer", async () => {
    const { evm, address } = await setup();
    const res = await evm.write({
      address,
      abi,
      functionName: "transfer",
      args: [alice, 250n],
      from: deployer,
    });
    expect(res.result).toBe(true);
    expect(TestEvm.events(res, abi, "Transfer")).toEqual([{ from: deployer, to: alice, value: 250n }]);
    expect(await evm.read({ address, abi, functionName: "balanceOf", args: [alice] })).toBe(250n);
    expect(await evm.read({ address, abi, functionName: "balanceOf", args: [deployer] })).toBe(750n);
  });

  it("reverts a transfer beyond the balance with the ERC20 reason string", async () => {
    const { evm, address } = await setup();
    const p = evm.write({ address, abi, functionName: "transfer", args: [bob, 1n], from: alice });
    await expect(p).rejects.toBeInstanceOf(RevertError);
    await expect(p).rejects.toMatchObject({
      errorName: "Error",
      args: ["ERC20: transfer amount exceeds balance"],
    });
    await expect(
      evm.write({
        address,
        abi,
        functionName: "transfer",
        args: ["0x0000000000000000000000000000000000000000", 1n],
        from: deployer,
      }),
    ).rejects.toMatchObject({ errorName: "Error", args: ["ERC20: transfer to the zero address"] });
  });

  it("transferFrom spends the allowance and reverts with InsufficientAllowance beyond it", async () => {
    const { evm, address } = await setup();
    const approval = await evm.write({
      address,
      abi,
      functionName: "approve",
      args: [alice, 100n],
      from: deployer,
    });
    expect(TestEvm.events(approval, abi, "Approval")).toEqual([
      { owner: deployer, spender: alice, value: 100n },
    ]);
    await evm.write({ address, abi, functionName: "transferFrom", args: [deployer, bob, 60n], from: alice });
    expect(await evm.read({ address, abi, functionName: "allowance", args: [deployer, alice] })).toBe(40n);
    expect(await evm.read({ address, abi, functionName: "balanceOf", args: [bob] })).toBe(60n);
    await expect(
      evm.write({ address, abi, functionName: "transferFrom", args: [deployer, bob, 41n], from: alice }),
    ).rejects.toMatchObject({ errorName: "InsufficientAllowance", args: [40n, 41n] });
  });

  it("an unlimited allowance is not decreased", async () => {
    const { evm, address } = await setup();
    const max = 2n ** 256n - 1n;
    await evm.write({ address, abi, functionName: "approve", args: [alice, max], from: deployer });
    await evm.write({ address, abi, functionName: "transferFrom", args: [deployer, bob, 10n], from: alice });
    expect(await evm.read({ address, abi, functionName: "allowance", args: [deployer, alice] })).toBe(max);
  });

  it("fail(reason) reverts with the reason and boom() with Boom(42)", async () => {
    const { evm, address } = await setup();
    await expect(evm.read({ address, abi, functionName: "fail", args: ["nope"] })).rejects.toMatchObject({
      errorName: "Error",
      args: ["nope"],
      message: "execution reverted: Error(nope)",
    });
    const boom = evm.read({ address, abi, functionName: "boom" });
    await expect(boom).rejects.toMatchObject({ errorName: "Boom", args: [42n] });
    await expect(boom).rejects.toMatchObject({
      data: encodeErrorResult({ abi, errorName: "Boom", args: [42n] }),
    });
  });
});
