import { createTxFromRLP } from "@ethereumjs/tx";
import { hexToBytes } from "@ethereumjs/util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeConfig, type NodeConfig, testConfig } from "../config/node-config.js";
import { signTransfer, type TransferFields } from "../testing/fast-signer.js";
import { startTestNode, type TestNode } from "../testing/test-node.js";
import { TxPool } from "./tx-pool.js";

const GWEI = 1_000_000_000n;
const HOUR = 3_600_000;
let t: TestNode;

beforeAll(async () => {
  t = await startTestNode({ mining: { mode: "manual" } });
});
afterAll(() => t.stop());

/** A pool over the test node's chain with its own limits and clock (it never sees the node's RPC). */
function pool(limits: Partial<NodeConfig["txpool"]> = {}, clock = { now: 0 }) {
  const base = testConfig();
  const config = createNodeConfig({ network: base.network, datadir: null, txpool: limits });
  return new TxPool(t.node.chain, config, () => clock.now);
}

/** Dev account `i`'s key (dev accounts hold 10,000 STRA each). */
const key = (i: number) => t.node.devAccounts[i]!.privateKey;
const to = "0x00000000000000000000000000000000000000aa";

function tx(i: number, fields: Partial<TransferFields> & { nonce: bigint }) {
  const raw = signTransfer(key(i), { to, maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, ...fields });
  return createTxFromRLP(hexToBytes(raw as `0x${string}`), { common: t.node.chain.common });
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("admitted");
}

describe("queued transactions", () => {
  it("expire after the configured lifetime (3 h by default); pending ones stay", async () => {
    expect(createNodeConfig({ datadir: null }).txpool.queuedLifetimeMs).toBe(3 * HOUR);
    const clock = { now: 1_000_000 };
    const p = pool({}, clock);
    await p.add(tx(1, { nonce: 0n }));
    const gapped = await p.add(tx(1, { nonce: 5n }));
    clock.now += HOUR;
    const later = await p.add(tx(2, { nonce: 3n }));
    expect([p.pendingCount, p.queuedCount]).toEqual([1, 2]);
    clock.now += 2 * HOUR - 1;
    p.dropExpired();
    expect(p.get(gapped.hash)).toBeDefined();
    clock.now += 1;
    p.dropExpired();
    expect(p.get(gapped.hash)).toBeUndefined();
    expect(p.get(later.hash)).toBeDefined();
    expect([p.pendingCount, p.queuedCount]).toEqual([1, 1]);
    clock.now += 10 * HOUR;
    p.dropExpired();
    expect([p.pendingCount, p.queuedCount]).toEqual([1, 0]);
  });

  it("are capped per sender and in all, apart from pending", async () => {
    const p = pool({ maxQueuedPerSender: 3, maxQueuedTotal: 5, maxPerSender: 4 });
    for (let n = 0n; n < 4n; n++) await p.add(tx(1, { nonce: n }));
    for (let n = 10n; n < 13n; n++) await p.add(tx(1, { nonce: n }));
    expect(await refusal(p.add(tx(1, { nonce: 13n })))).toBe("account limit exceeded");
    await p.add(tx(2, { nonce: 7n }));
    await p.add(tx(2, { nonce: 8n }));
    expect([p.pendingCount, p.queuedCount]).toEqual([4, 5]);
    expect(await refusal(p.add(tx(3, { nonce: 1n })))).toBe("transaction underpriced");
    // A better-paying queued transaction takes the place of the cheapest queued one.
    const rich = await p.add(tx(3, { nonce: 1n, maxPriorityFeePerGas: 2n * GWEI }));
    expect(p.get(rich.hash)).toBeDefined();
    expect([p.pendingCount, p.queuedCount]).toEqual([4, 5]);
    // Pending has its own room: a fourth sender's executable transaction is admitted.
    await p.add(tx(4, { nonce: 0n }));
    expect([p.pendingCount, p.queuedCount]).toEqual([5, 5]);
  });

  it("become pending when the gap is filled, trimmed to the per-sender pending cap", async () => {
    const p = pool({ maxPerSender: 3 });
    await p.add(tx(1, { nonce: 1n }));
    await p.add(tx(1, { nonce: 2n }));
    await p.add(tx(1, { nonce: 3n }));
    expect([p.pendingCount, p.queuedCount]).toEqual([0, 3]);
    await p.add(tx(1, { nonce: 0n }));
    expect([p.pendingCount, p.queuedCount]).toEqual([3, 0]);
    expect(p.executable(0n).map((entry) => entry.nonce)).toEqual([0n, 1n, 2n]);
  });
});

describe("a full pool", () => {
  it("evicts the cheapest pending transaction for a better-paying one, refuses one that pays no more", async () => {
    const p = pool({ maxTotal: 3 });
    const cheap = await p.add(tx(1, { nonce: 0n, maxPriorityFeePerGas: GWEI }));
    const cheapChild = await p.add(tx(1, { nonce: 1n, maxPriorityFeePerGas: 3n * GWEI }));
    await p.add(tx(2, { nonce: 0n, maxPriorityFeePerGas: 2n * GWEI }));
    expect(await refusal(p.add(tx(3, { nonce: 0n, maxPriorityFeePerGas: GWEI })))).toBe(
      "transaction underpriced",
    );
    const better = await p.add(tx(3, { nonce: 0n, maxPriorityFeePerGas: GWEI + 1n }));
    // The cheapest goes, and with it its sender's later transaction, which could not execute without it.
    expect(p.get(cheap.hash)).toBeUndefined();
    expect(p.get(cheapChild.hash)).toBeUndefined();
    expect(p.get(better.hash)).toBeDefined();
    expect(p.pendingCount).toBe(2);
  });

  it("compares by effective tip at the next base fee, then by fee cap", async () => {
    const baseFee = t.node.chain.head.header.calcNextBaseFee();
    const p = pool({ maxTotal: 1 });
    // A fee cap 10 wei over the base fee leaves an effective tip of 10 wei.
    await p.add(tx(1, { nonce: 0n, maxFeePerGas: baseFee + 10n, maxPriorityFeePerGas: baseFee + 10n }));
    const admitted = await p.add(tx(2, { nonce: 0n, maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: 11n }));
    expect(p.get(admitted.hash)).toBeDefined();
    expect(
      await refusal(p.add(tx(3, { nonce: 0n, maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: 11n }))),
    ).toBe("transaction underpriced");
    await p.add(tx(3, { nonce: 0n, maxFeePerGas: 11n * GWEI, maxPriorityFeePerGas: 11n }));
    expect(p.get(admitted.hash)).toBeUndefined();
  });

  it("never evicts a sender's own earlier transaction for its next one", async () => {
    const p = pool({ maxTotal: 2 });
    await p.add(tx(1, { nonce: 0n, maxPriorityFeePerGas: GWEI }));
    await p.add(tx(2, { nonce: 0n, maxPriorityFeePerGas: 2n * GWEI }));
    expect(await refusal(p.add(tx(1, { nonce: 1n, maxPriorityFeePerGas: 5n * GWEI })))).toBe(
      "txpool is full",
    );
  });
});

describe("balance", () => {
  it("must cover the sum of the sender's pool transactions, replacements included", async () => {
    const balance = (await t.node.chain.account(t.node.chain.head, t.node.devAccounts[5]!.address))!.balance;
    const p = pool();
    const fee = 21_000n * 10n * GWEI;
    const third = balance / 3n - fee;
    await p.add(tx(5, { nonce: 0n, value: third }));
    await p.add(tx(5, { nonce: 1n, value: third }));
    await p.add(tx(5, { nonce: 7n, value: third }));
    const spent = 3n * (third + fee);
    expect(await refusal(p.add(tx(5, { nonce: 2n, value: third })))).toBe(
      `insufficient funds for gas * price + value: balance ${balance}, queued cost ${spent}, tx cost ${third + fee}, overshot ${spent + third + fee - balance}`,
    );
    // Each alone is affordable: the refusal is about the sum.
    expect(third + fee).toBeLessThan(balance);
    // A replacement counts in place of the one it replaces: a bigger value overdraws, a bump does not.
    expect(
      await refusal(
        p.add(
          tx(5, { nonce: 1n, value: 2n * third, maxFeePerGas: 20n * GWEI, maxPriorityFeePerGas: 2n * GWEI }),
        ),
      ),
    ).toMatch(/^insufficient funds for gas \* price \+ value: balance \d+, queued cost \d+, tx cost \d+/);
    await p.add(
      tx(5, { nonce: 1n, value: third - fee, maxFeePerGas: 11n * GWEI, maxPriorityFeePerGas: 2n * GWEI }),
    );
    expect(p.size).toBe(3);
  });
});
