import { type Hex, hexToBytes } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chainConfigResponse, forkId } from "../../../config/fork-config.js";
import { rpc } from "../../../e2e/clients.js";
import { startTestNode, type TestNode } from "../../../testing/test-node.js";

/** Ethereum mainnet's fork schedule, as in its genesis config. */
const MAINNET = {
  chainId: 1,
  homesteadBlock: 1_150_000,
  daoForkBlock: 1_920_000,
  eip150Block: 2_463_000,
  eip155Block: 2_675_000,
  eip158Block: 2_675_000,
  byzantiumBlock: 4_370_000,
  constantinopleBlock: 7_280_000,
  petersburgBlock: 7_280_000,
  istanbulBlock: 9_069_000,
  muirGlacierBlock: 9_200_000,
  berlinBlock: 12_244_000,
  londonBlock: 12_965_000,
  arrowGlacierBlock: 13_773_000,
  grayGlacierBlock: 15_050_000,
  shanghaiTime: 1681338455,
  cancunTime: 1710338135,
  pragueTime: 1746612311,
  osakaTime: 1764798551,
  depositContractAddress: "0x00000000219ab540356cBB839Cbe05303d7705Fa",
  blobSchedule: {
    cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
    prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
  },
};
const MAINNET_GENESIS = hexToBytes("0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3");

describe("EIP-2124 fork ids and EIP-7910 fork configs", () => {
  it("computes geth's mainnet fork ids", () => {
    // Test vectors of go-ethereum's core/forkid tests.
    expect(forkId(MAINNET, MAINNET_GENESIS, 0n, 1681338454n)).toBe("0xf0afd0e3");
    expect(forkId(MAINNET, MAINNET_GENESIS, 0n, 1681338455n)).toBe("0xdce96c2d");
    expect(forkId(MAINNET, MAINNET_GENESIS, 0n, 1710338135n)).toBe("0x9f3d2254");
    expect(forkId(MAINNET, MAINNET_GENESIS, 0n, 1746612311n)).toBe("0xc376cf8b");
  });

  it("describes the current, next and last forks of mainnet during Prague", () => {
    const response = chainConfigResponse({
      config: MAINNET,
      chainId: 1n,
      genesisHash: MAINNET_GENESIS,
      genesisTime: 0n,
      headTime: 1750000000n,
    });
    expect(response.current).toMatchObject({
      activationTime: 1746612311,
      blobSchedule: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
      chainId: "0x1",
      forkId: "0xc376cf8b",
      systemContracts: {
        BEACON_ROOTS_ADDRESS: "0x000f3df6d732807ef1319fb7b8bb8522d0beac02",
        DEPOSIT_CONTRACT_ADDRESS: "0x00000000219ab540356cbb839cbe05303d7705fa",
      },
    });
    expect(Object.keys(response.current!.precompiles)).toHaveLength(17);
    expect(Object.keys(response.current!.systemContracts)).toHaveLength(5);
    expect(response.next?.activationTime).toBe(1764798551);
    expect(response.next?.precompiles.P256VERIFY).toBe("0x0000000000000000000000000000000000000100");
    // Osaka carries no blob schedule of its own: Prague's still applies.
    expect(response.next?.blobSchedule).toEqual(response.current!.blobSchedule);
    expect(response.last).toEqual(response.next);
  });

  it("has no next or last fork when none is scheduled", () => {
    const { osakaTime: _, ...pragueOnly } = MAINNET;
    const response = chainConfigResponse({
      config: pragueOnly,
      chainId: 1n,
      genesisHash: MAINNET_GENESIS,
      genesisTime: 0n,
      headTime: 1750000000n,
    });
    expect(response.current?.forkId).toBe("0xc376cf8b");
    expect(response.next).toBeNull();
    expect(response.last).toBeNull();
  });
});

describe("eth_config, eth_capabilities, eth_baseFee", () => {
  let t: TestNode;

  beforeAll(async () => {
    t = await startTestNode();
  });

  afterAll(() => t?.stop());

  it("eth_config describes the dev network's Prague rules from genesis", async () => {
    const { result } = await rpc(t.url, "eth_config");
    const config = result as { current: Record<string, unknown>; next: unknown; last: unknown };
    expect(config.current).toMatchObject({
      activationTime: 0,
      chainId: "0x539",
      blobSchedule: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
    });
    expect(config.current.forkId).toMatch(/^0x[0-9a-f]{8}$/);
    expect(config.next).toBeNull();
    expect(config.last).toBeNull();
  });

  it("eth_capabilities reports an archive node: everything from genesis", async () => {
    const { result } = await rpc(t.url, "eth_capabilities");
    const head = (await rpc(t.url, "eth_getBlockByNumber", ["latest", false])).result as {
      number: Hex;
      hash: Hex;
    };
    const whole = { disabled: false, oldestBlock: "0x0" };
    expect(result).toEqual({
      head: { number: head.number, hash: head.hash },
      state: whole,
      tx: whole,
      logs: whole,
      receipts: whole,
      blocks: whole,
      stateproofs: whole,
    });
  });

  it("eth_baseFee is the next block's base fee, as in the pending block", async () => {
    const { result } = await rpc(t.url, "eth_baseFee");
    const gasPrice = BigInt((await rpc(t.url, "eth_gasPrice")).result as Hex);
    const tip = BigInt((await rpc(t.url, "eth_maxPriorityFeePerGas")).result as Hex);
    expect(BigInt(result as Hex)).toBe(gasPrice - tip);
  });
});
