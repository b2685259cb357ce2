import { type Abi, type Address, encodeFunctionData, keccak256, maxUint256, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestNode, type TestNode } from "../../testing/test-node.js";
import { rpc } from "../clients.js";
import { type DappClient, ethersDappClient, type Sent, viemDappClient } from "./clients.js";
import { type DappArtifacts, dappArtifacts } from "./compile.js";

const E18 = 10n ** 18n;
let artifacts: DappArtifacts;

beforeAll(() => {
  artifacts = dappArtifacts();
}, 120_000);

/** The request a library sends for `fn`, for estimates at an explicit tag. */
function request(client: DappClient, to: Address, abi: Abi, fn: string, args: readonly unknown[]) {
  return { from: client.address, to, data: encodeFunctionData({ abi, functionName: fn, args }) };
}

/**
 * Sends `fn` twice in consecutive blocks, each with the library's bare estimate as gas limit, and
 * checks both succeed with exactly that limit.
 */
async function twiceInConsecutiveBlocks(
  client: DappClient,
  to: Address,
  abi: Abi,
  fn: string,
  args: readonly unknown[],
): Promise<Sent[]> {
  const sent: Sent[] = [];
  for (let i = 0; i < 2; i++) {
    const estimate = await client.estimate(to, abi, fn, args);
    const tx = await client.send(to, abi, fn, args);
    expect(tx.gasLimit).toBe(estimate);
    expect(tx.status).toBe("success");
    sent.push(tx);
  }
  expect(sent[1]!.blockNumber).toBe(sent[0]!.blockNumber + 1n);
  return sent;
}

describe.each([
  ["viem", viemDappClient],
  ["ethers", ethersDappClient],
] as const)("estimates that hold in the next block (%s, bare estimate as gas limit)", (_name, makeClient) => {
  let t: TestNode;
  let client: DappClient;
  let tokenA: Address;
  let tokenB: Address;

  beforeAll(async () => {
    t = await startTestNode({ mining: { mode: "instant" } });
    client = makeClient(t.url, 0);
    tokenA = await client.deploy(artifacts.PlainToken, ["A", 10n ** 30n]);
    tokenB = await client.deploy(artifacts.PlainToken, ["B", 10n ** 30n]);
  }, 60_000);

  afterAll(async () => {
    client.close();
    await t.stop();
  });

  it("a Uniswap v2 pair swap, twice", async () => {
    const { UniswapV2Factory, UniswapV2Pair, V2Driver, PlainToken } = artifacts;
    const factory = await client.deploy(UniswapV2Factory, [client.address]);
    await client.send(factory, UniswapV2Factory.abi, "createPair", [tokenA, tokenB]);
    const pair = (await client.read(factory, UniswapV2Factory.abi, "getPair", [tokenA, tokenB])) as Address;
    const driver = await client.deploy(V2Driver);
    for (const token of [tokenA, tokenB])
      await client.send(token, PlainToken.abi, "approve", [driver, maxUint256]);
    await client.send(driver, V2Driver.abi, "addLiquidity", [
      pair,
      tokenA,
      tokenB,
      10n ** 6n * E18,
      10n ** 6n * E18,
    ]);
    const swap = [pair, tokenA, 1000n * E18] as const;
    // In the head's context (same timestamp as the last write) the price accumulators would not be
    // written: an estimate there is lower than what the next block needs.
    const atLatest = BigInt(
      (
        await rpc(t.url, "eth_estimateGas", [
          request(client, driver, V2Driver.abi, "swapExactIn", swap),
          "latest",
        ])
      ).result as string,
    );
    const [first] = await twiceInConsecutiveBlocks(client, driver, V2Driver.abi, "swapExactIn", swap);
    expect(first!.gasLimit).toBeGreaterThan(atLatest);
    const accumulated = (await client.read(pair, UniswapV2Pair.abi, "price0CumulativeLast")) as bigint;
    expect(BigInt(accumulated)).toBeGreaterThan(0n);
  }, 60_000);

  it("a Uniswap v3 pool swap, twice", async () => {
    const { UniswapV3Factory, UniswapV3Pool, V3Driver, PlainToken } = artifacts;
    const factory = await client.deploy(UniswapV3Factory);
    await client.send(factory, UniswapV3Factory.abi, "createPool", [tokenA, tokenB, 3000]);
    const pool = (await client.read(factory, UniswapV3Factory.abi, "getPool", [
      tokenA,
      tokenB,
      3000,
    ])) as Address;
    await client.send(pool, UniswapV3Pool.abi, "initialize", [2n ** 96n]);
    const driver = await client.deploy(V3Driver);
    for (const token of [tokenA, tokenB])
      await client.send(token, PlainToken.abi, "approve", [driver, maxUint256]);
    await client.send(driver, V3Driver.abi, "mint", [pool, -600, 600, 10n ** 6n * E18]);
    await twiceInConsecutiveBlocks(client, driver, V3Driver.abi, "swapExactIn", [pool, true, 10n * E18]);
  }, 60_000);

  it("an ERC20Votes transfer, twice", async () => {
    const { VotesToken } = artifacts;
    const votes = await client.deploy(VotesToken, [10n ** 6n * E18]);
    const recipient = makeClient(t.url, 1);
    try {
      await client.send(votes, VotesToken.abi, "delegate", [client.address]);
      await recipient.send(votes, VotesToken.abi, "delegate", [recipient.address]);
      await twiceInConsecutiveBlocks(client, votes, VotesToken.abi, "transfer", [recipient.address, E18]);
      // Each transfer in its own block pushed a new checkpoint of the recipient's votes.
      expect(Number(await client.read(votes, VotesToken.abi, "numCheckpoints", [recipient.address]))).toBe(2);
    } finally {
      recipient.close();
    }
  }, 60_000);

  it("a Governor castVote estimated in the block where the proposal turns active", async () => {
    const { VotesToken, TestGovernor } = artifacts;
    const votes = await client.deploy(VotesToken, [10n ** 6n * E18]);
    await client.send(votes, VotesToken.abi, "delegate", [client.address]);
    const governor = await client.deploy(TestGovernor, [votes]);
    const targets = [votes];
    const values = [0n];
    const calldatas = [encodeFunctionData({ abi: VotesToken.abi, functionName: "name" })];
    const description = `proposal of ${client.name}`;
    await client.send(governor, TestGovernor.abi, "propose", [targets, values, calldatas, description]);
    const id = (await client.read(governor, TestGovernor.abi, "hashProposal", [
      targets,
      values,
      calldatas,
      keccak256(toHex(description)),
    ])) as bigint;
    // Voting opens one block after the snapshot: the head is now the snapshot block.
    await rpc(t.url, "evm_mine", []);
    expect(Number(await client.read(governor, TestGovernor.abi, "state", [id]))).toBe(0);
    const vote = [id, 1] as const;
    const atLatest = await rpc(t.url, "eth_estimateGas", [
      request(client, governor, TestGovernor.abi, "castVote", vote),
      "latest",
    ]);
    expect(atLatest.error?.message).toMatch(/execution reverted/);
    const estimate = await client.estimate(governor, TestGovernor.abi, "castVote", vote);
    const sent = await client.send(governor, TestGovernor.abi, "castVote", vote);
    expect(sent.status).toBe("success");
    expect(sent.gasLimit).toBe(estimate);
    expect(await client.read(governor, TestGovernor.abi, "hasVoted", [id, client.address])).toBe(true);
  }, 60_000);
});
