import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tinyGenesis } from "../../conformance/harness/tiny-chain.js";
import { rpc } from "../../e2e/clients.js";
import { networkFromGenesis } from "../../import/datadir-network.js";
import type { StrataNode } from "../../node.js";
import { startTestNode } from "../../testing/test-node.js";

/** Runtime code returning the gas left at its first instruction: `GAS PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN`. */
const GAS_REPORTER = "0x00000000000000000000000000000000000006a5";
/** Runtime code returning transient slot 0 (TLOAD, from Cancun on): `PUSH0 TLOAD PUSH0 MSTORE PUSH1 32 PUSH0 RETURN`. */
const TRANSIENT_READER = "0x00000000000000000000000000000000000006a6";
/** EIP-7825's per-transaction gas limit (Osaka). */
const TX_GAS_LIMIT = 16_777_216n;
/** Intrinsic gas of a call without data plus the GAS instruction itself. */
const OVERHEAD = 21_000n + 2n;

/**
 * A chain crossing three forks: genesis is Shanghai, block 1 (t=1005) is still Shanghai, and from
 * t=1030 Osaka applies, so block 2 (t=1040) is an Osaka block.
 */
function forkingGenesis(): Record<string, unknown> {
  const genesis = tinyGenesis(4343) as { config: Record<string, unknown>; alloc: Record<string, unknown> };
  genesis.config = {
    ...genesis.config,
    shanghaiTime: 1000,
    cancunTime: 1010,
    pragueTime: 1020,
    osakaTime: 1030,
    blobSchedule: {
      cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
      prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
      osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
    },
  };
  genesis.alloc = {
    ...genesis.alloc,
    [GAS_REPORTER]: { balance: "0x0", code: "0x5a60005260206000f3" },
    [TRANSIENT_READER]: { balance: "0x0", code: "0x5f5c5f5260205ff3" },
  };
  return genesis;
}

async function gasSeen(node: StrataNode, block: string, gas?: bigint): Promise<bigint> {
  const request = { to: GAS_REPORTER, ...(gas === undefined ? {} : { gas: `0x${gas.toString(16)}` }) };
  const answer = await rpc(node.rpcUrl, "eth_call", [request, block]);
  expect(answer.error).toBeUndefined();
  return BigInt(answer.result as string);
}

describe("calls under the rules of their block's fork", () => {
  let node: StrataNode;

  beforeAll(async () => {
    const network = networkFromGenesis(forkingGenesis(), "forking genesis");
    node = (await startTestNode({ network, mining: { mode: "manual" } })).node;
    for (const timestamp of [1005n, 1040n]) {
      node.producer.setNextTimestamp(timestamp);
      await node.producer.mine(1);
    }
  });
  afterAll(() => node.stop());

  it("caps an Osaka call at EIP-7825's 2^24 gas instead of failing on the 50M RPC gas cap", async () => {
    expect(await gasSeen(node, "latest")).toBe(TX_GAS_LIMIT - OVERHEAD);
    expect(await gasSeen(node, "latest", 30_000_000n)).toBe(TX_GAS_LIMIT - OVERHEAD);
    const estimate = await rpc(node.rpcUrl, "eth_estimateGas", [{ to: GAS_REPORTER }]);
    expect(BigInt(estimate.result as string)).toBeGreaterThan(21_000n);
    const list = await rpc(node.rpcUrl, "eth_createAccessList", [{ to: GAS_REPORTER }]);
    expect(list.error).toBeUndefined();
  });

  it("runs a call at a block before Osaka under that block's rules, without the cap", async () => {
    expect(await gasSeen(node, "0x1")).toBe(50_000_000n - OVERHEAD);
    expect(await gasSeen(node, "0x1", 30_000_000n)).toBe(30_000_000n - OVERHEAD);
  });

  it("reports blob base fee and blob gas ratio 0 for blocks before Cancun in eth_feeHistory", async () => {
    const history = await rpc(node.rpcUrl, "eth_feeHistory", ["0x2", "latest", []]);
    expect(history.error).toBeUndefined();
    const result = history.result as { baseFeePerBlobGas: string[]; blobGasUsedRatio: number[] };
    expect(result.baseFeePerBlobGas[0]).toBe("0x0");
    expect(result.blobGasUsedRatio).toEqual([0, 0]);
    expect(result.baseFeePerBlobGas[1]).toBe("0x1");
  });

  it("refuses an eth_getLogs range ending beyond the head with geth's error", async () => {
    const answer = await rpc(node.rpcUrl, "eth_getLogs", [{ fromBlock: "0x1", toBlock: "0x5" }]);
    expect(answer.error).toEqual({ code: -32602, message: "block range extends beyond current head block" });
    const within = await rpc(node.rpcUrl, "eth_getLogs", [{ fromBlock: "0x1", toBlock: "0x2" }]);
    expect(within.result).toEqual([]);
  });
});

describe("calls at the head while the head crosses a fork", () => {
  let node: StrataNode;

  beforeAll(async () => {
    const network = networkFromGenesis(forkingGenesis(), "forking genesis");
    node = (await startTestNode({ network, mining: { mode: "manual" } })).node;
    node.producer.setNextTimestamp(1005n);
    await node.producer.mine(1);
  });
  afterAll(() => node.stop());

  it("runs under the new fork's rules once the head is past it", async () => {
    const call = () => rpc(node.rpcUrl, "eth_call", [{ to: TRANSIENT_READER }, "latest"]);
    // Shanghai: TLOAD is not an opcode yet.
    expect((await call()).error?.message).toMatch(/invalid opcode/);
    node.producer.setNextTimestamp(1040n);
    await node.producer.mine(1);
    expect((await call()).result).toBe(`0x${"0".repeat(64)}`);
  });
});
