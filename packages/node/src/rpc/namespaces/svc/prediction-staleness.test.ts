import { PRICE_ORACLE_ADDRESS, PriceOracle } from "@strata/contracts";
import { encodeFunctionData } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpc, viemClients } from "../../../e2e/clients.js";
import { startTestNode, type TestNode } from "../../../testing/test-node.js";

type RpcAnswer = { result?: Record<string, unknown>; error?: { code: number; message: string } };

const DAY = 86_400;
let t: TestNode;
let c: ReturnType<typeof viemClients>;
const now = Math.floor(Date.now() / 1000);
/** The seeded history ends three days ago: a feed still seeding, or one that went silent. */
const lastObservation = now - 3 * DAY;

const predict = async (params: unknown[]) => (await rpc(t.url, "svc_getAIPrediction", params)) as RpcAnswer;

const write = async (functionName: "submitBatch" | "submit", args: readonly unknown[]) => {
  // Account 100 is an active dev validator, so it may report. Gas and fees are given like the
  // reporter gives them, so the transaction is sent as it is.
  const block = await c.publicClient.getBlock({ blockTag: "latest" });
  const hash = await c.wallet.sendTransaction({
    to: PRICE_ORACLE_ADDRESS,
    data: encodeFunctionData({ abi: PriceOracle.abi, functionName, args } as never),
    gas: 5_000_000n,
    nonce: await c.publicClient.getTransactionCount({
      address: c.wallet.account.address,
      blockTag: "pending",
    }),
    maxFeePerGas: (block.baseFeePerGas ?? 0n) * 2n + 10n ** 9n,
    maxPriorityFeePerGas: 10n ** 9n,
  });
  const receipt = await c.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
};

beforeAll(async () => {
  t = await startTestNode();
  c = viemClients(t.url, 100);
  const days = 60;
  const prices = Array.from({ length: days }, (_, i) => BigInt(Math.round((100 + 5 * Math.sin(i)) * 1e8)));
  const times = prices.map((_, i) => BigInt(lastObservation - (days - 1 - i) * DAY));
  await write("submitBatch", ["ETH", prices, times]);
});

afterAll(() => t.stop());

describe("svc_getAIPrediction on a stale or seeding feed", () => {
  it("refuses with -32002 naming the asset and the last observation when it is older than the horizon", async () => {
    const res = await predict(["ETH", 1]);
    expect(res.error?.code).toBe(-32002);
    expect(res.error?.message).toContain("ETH");
    expect(res.error?.message).toContain(new Date(lastObservation * 1000).toISOString());
  });

  it("answers with stale: true and the observation time when the horizon reaches past now", async () => {
    const res = await predict(["ETH", 7]);
    expect(res.error).toBeUndefined();
    expect(res.result?.stale).toBe(true);
    expect(res.result?.timestamp).toBe(new Date(lastObservation * 1000).toISOString());
  });

  it("is fresh again (stale: false) once a current price is reported", async () => {
    await write("submit", ["ETH", 101n * 10n ** 8n, BigInt(Math.floor(Date.now() / 1000))]);
    const res = await predict(["ETH", 1]);
    expect(res.error).toBeUndefined();
    expect(res.result?.stale).toBe(false);
    expect(res.result?.currentPrice).toBe("101");
  });
});
