import { parseCommission, STAKING_ADDRESS, Staking } from "@strata/contracts";
import type { Validator } from "@strata/protocol";
import { type Hash, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccount, rpc, viemClients } from "../../e2e/clients.js";
import { startTestNode, type TestNode } from "../../testing/test-node.js";

const EPOCH = 20n;
const BLOCK_REWARD = parseEther("2");

describe("staking end to end (dev network, manual mining)", () => {
  let t: TestNode;
  let clients: ReturnType<typeof viemClients>;
  const validator = devAccount(5);
  const delegator = devAccount(6);
  const v = validator.address.toLowerCase();

  beforeAll(async () => {
    t = await startTestNode({ mining: { mode: "manual" } });
    clients = viemClients(t.url);
  });
  afterAll(() => t.stop());

  async function mined(send: Promise<Hash>) {
    const hash = await send;
    await t.node.producer.mine(1);
    const receipt = await clients.publicClient.getTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    return receipt;
  }
  const head = () => t.node.chain.head.header.number;
  async function mineTo(number: bigint) {
    if (number > head()) await t.node.producer.mine(Number(number - head()));
  }
  async function validators(): Promise<Validator[]> {
    return (await rpc(t.url, "svc_getValidators")).result as Validator[];
  }
  const find = async () => (await validators()).find((x) => x.address === v)!;
  const write = (from: typeof validator, functionName: string, args: unknown[], value?: bigint) =>
    clients.wallet.writeContract({
      account: from,
      address: STAKING_ADDRESS,
      abi: Staking.abi,
      functionName,
      args,
      ...(value === undefined ? {} : { value }),
    } as never);

  it("registers a validator by transaction; it is inactive until the next epoch", async () => {
    await mined(write(validator, "registerValidator", [parseCommission("0.1")], parseEther("5000")));
    await mined(write(delegator, "delegate", [validator.address], parseEther("3000")));
    const mine = await find();
    expect(mine).toMatchObject({
      stake: parseEther("8000").toString(),
      selfStake: parseEther("5000").toString(),
      delegatedStake: parseEther("3000").toString(),
      commission: "0.1",
      status: "inactive",
      uptime: "100.00",
      blocksProposed: 0,
      jailed: false,
    });
    const all = await validators();
    expect(all[0]!.address).toBe(v);
    expect(all).toHaveLength(5);
  });

  it("enters the active set at the next epoch boundary and proposes blocks it seals", async () => {
    await mineTo(EPOCH);
    expect((await find()).status).toBe("active");
    await mineTo(2n * EPOCH);
    const mine = await find();
    expect(mine.blocksProposed).toBeGreaterThan(0);
    expect(mine.uptime).toBe("100.00");
    const proposed = [];
    for (let n = EPOCH; n <= head(); n++) {
      const block = await clients.publicClient.getBlock({ blockNumber: n });
      if (block.miner.toLowerCase() === v) proposed.push(n);
    }
    expect(proposed.length).toBe(mine.blocksProposed);
  });

  it("loses uptime and is jailed when offline, and the chain goes on through fallbacks", async () => {
    t.node.consensus!.setOffline([validator.address]);
    const before = head();
    await t.node.producer.mine(Number(EPOCH));
    const mine = await find();
    expect(head()).toBe(before + EPOCH);
    expect(mine.blocksMissed).toBeGreaterThanOrEqual(3);
    expect(Number(mine.uptime)).toBeLessThan(100);
    expect(mine.jailed).toBe(true);
    expect(mine.status).toBe("jailed");
    t.node.consensus!.setOffline([]);
  });

  it("undelegates into unbonding and withdraws after the unbonding period", async () => {
    const undelegated = await mined(write(delegator, "undelegate", [validator.address, parseEther("3000")]));
    const info = (await rpc(t.url, "svc_getStakingInfo", [delegator.address])).result as {
      unbonding: { validator: string; amount: string; completionBlock: string }[];
      delegations: unknown[];
      totalDelegated: string;
    };
    expect(info.unbonding).toEqual([
      {
        validator: v,
        amount: parseEther("3000").toString(),
        completionBlock: `0x${(undelegated.blockNumber + 20n).toString(16)}`,
      },
    ]);
    expect(info.totalDelegated).toBe("0");
    await expect(
      clients.publicClient.simulateContract({
        account: delegator,
        address: STAKING_ADDRESS,
        abi: Staking.abi,
        functionName: "withdraw",
      }),
    ).rejects.toThrow(/UnbondingNotComplete/);
    await mineTo(undelegated.blockNumber + 20n);
    const balance = await clients.publicClient.getBalance({ address: delegator.address });
    const withdrawn = await mined(write(delegator, "withdraw", []));
    const after = await clients.publicClient.getBalance({ address: delegator.address });
    expect(after - balance).toBe(parseEther("3000") - withdrawn.gasUsed * withdrawn.effectiveGasPrice);
  });

  it("credits exactly the block rewards plus priority fees of every distributed epoch", async () => {
    await mineTo((head() / EPOCH + 1n) * EPOCH - 1n);
    const last = head();
    expect(last % EPOCH).toBe(EPOCH - 1n);
    let fees = 0n;
    for (let n = 1n; n <= last; n++) {
      const block = await clients.publicClient.getBlock({ blockNumber: n, includeTransactions: true });
      for (const tx of block.transactions) {
        const receipt = await clients.publicClient.getTransactionReceipt({ hash: tx.hash });
        fees += receipt.gasUsed * (receipt.effectiveGasPrice - block.baseFeePerGas!);
      }
    }
    expect(fees).toBeGreaterThan(0n);
    const minted = BLOCK_REWARD * last + fees;
    const read = (functionName: string, args: unknown[] = []) =>
      clients.publicClient.readContract({
        address: STAKING_ADDRESS,
        abi: Staking.abi,
        functionName,
        args,
      } as never);
    expect(await read("totalRewardsDistributed")).toBe(minted);
    // Every distributed wei is accounted for: pending (1e-36 wei precision), carries and claims.
    const precision = 10n ** 36n;
    const validatorAddresses = (await validators()).map((x) => x.address);
    let accounted = ((await read("totalRewardsClaimed")) as bigint) * precision;
    for (const account of [...validatorAddresses, delegator.address.toLowerCase()]) {
      const [amount, fraction] = (await read("pendingRewardsPrecise", [account])) as [bigint, bigint];
      accounted += amount * precision + fraction;
    }
    for (const address of validatorAddresses) accounted += (await read("rewardCarry", [address])) as bigint;
    expect(accounted).toBe(minted * precision);
    // Nothing is left in the pot after the epoch's distribution.
    expect(
      await clients.publicClient.getBalance({ address: "0xfffffffffffffffffffffffffffffffffffffffe" }),
    ).toBe(0n);
  });

  it("reports network and account staking figures from chain state", async () => {
    const network = (await rpc(t.url, "svc_getStakingInfo")).result as Record<string, unknown>;
    expect(network).toMatchObject({
      validatorCount: 5,
      minValidatorStake: parseEther("1000").toString(),
      epochLength: 20,
      unbondingPeriod: 20,
      blockReward: BLOCK_REWARD.toString(),
    });
    expect(Number(network.apr)).toBeGreaterThan(0);
    // The APR says which completed epochs it covers: the latest ones, up to a full window of 10.
    const window = network.aprWindow as {
      fromBlock: string;
      toBlock: string;
      epochs: number;
      fullEpochs: number;
      seconds: number;
      complete: boolean;
    };
    const head = await clients.publicClient.getBlockNumber();
    expect(window.fullEpochs).toBe(10);
    expect(window.epochs).toBeGreaterThan(0);
    expect(window.complete).toBe(window.epochs === 10);
    expect((BigInt(window.toBlock) + 1n) % 20n).toBe(0n);
    expect(BigInt(window.toBlock)).toBeLessThanOrEqual(head);
    expect(head - BigInt(window.toBlock)).toBeLessThan(20n);
    expect(BigInt(window.toBlock) + 1n - BigInt(window.fromBlock)).toBe(BigInt(window.epochs * 20));
    expect(window.seconds).toBeGreaterThan(0);
    expect(network.totalStaked).toBe(parseEther("25000").toString());
    const mine = (await rpc(t.url, "svc_getStakingInfo", [validator.address])).result as Record<
      string,
      unknown
    >;
    expect(mine).toMatchObject({ address: v, isValidator: true, selfStake: parseEther("5000").toString() });
    expect(BigInt(mine.pendingRewards as string)).toBeGreaterThan(0n);
    const nobody = (await rpc(t.url, "svc_getStakingInfo", ["0x000000000000000000000000000000000000dead"]))
      .result as Record<string, unknown>;
    expect(nobody).toMatchObject({
      isValidator: false,
      selfStake: "0",
      delegations: [],
      unbonding: [],
      totalDelegated: "0",
      pendingRewards: "0",
    });
    const bad = await rpc(t.url, "svc_getStakingInfo", ["0x1234"]);
    expect(bad.error?.code).toBe(-32602);
    const badTag = await rpc(t.url, "svc_getValidators", ["0xzz"]);
    expect(badTag.error?.code).toBe(-32602);
  });
});
