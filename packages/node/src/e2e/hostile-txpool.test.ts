import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signTransfer, testAccount } from "../testing/fast-signer.js";
import { startTestNode, type TestNode } from "../testing/test-node.js";
import { rawRpc, rpc } from "./clients.js";

// Hostile input: filling the transaction pool for free. Accounts that can pay for a handful of
// transactions send hundreds each behind a nonce gap (never executable, so never paid for). geth's
// rules keep that bounded: queued transactions have their own caps apart from pending, and a
// sender's balance must cover the sum of its pool transactions.

const GWEI = 1_000_000_000n;
const ATTACKERS = 40;
const TXS_EACH = 512;
const ATTACK_FEE = { maxFeePerGas: 20n * GWEI, maxPriorityFeePerGas: 2n * GWEI };
/** What one attack transaction can cost; each attacker is funded for 100 of them, not 512. */
const ATTACK_TX_COST = 21_000n * ATTACK_FEE.maxFeePerGas + 1n;
const BATCH = 1000;

type Response = { id: number; result?: unknown; error?: { code: number; message: string } };
let t: TestNode;

beforeAll(async () => {
  t = await startTestNode();
});
afterAll(() => t.stop());

async function batch(raws: readonly string[]): Promise<Response[]> {
  const body = raws.map((raw, id) => ({
    jsonrpc: "2.0",
    id,
    method: "eth_sendRawTransaction",
    params: [raw],
  }));
  return (await rawRpc(t.url, JSON.stringify(body))).body as Response[];
}

async function receipt(hash: unknown, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await rpc(t.url, "eth_getTransactionReceipt", [hash])).result as { status: string } | null;
    if (found || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("hostile input: filling the transaction pool", () => {
  it("40 barely funded accounts sending 512 gapped transactions each stay within the queue caps and cannot keep an honest transaction out", async () => {
    const funder = t.node.devAccounts[0]!;
    const attackers = Array.from({ length: ATTACKERS }, (_, i) => testAccount(18_000 + i));
    // Nonces 1..512: nonce 0 never comes, so none of them can ever execute. Signed first: the
    // funding below then reaches the pool right before them.
    const raws = attackers.flatMap((attacker) =>
      Array.from({ length: TXS_EACH }, (_, i) =>
        signTransfer(attacker.key, { nonce: BigInt(i + 1), to: attacker.address, ...ATTACK_FEE }),
      ),
    );
    const funding = await batch(
      attackers.map((attacker, i) =>
        signTransfer(funder.privateKey, {
          nonce: BigInt(i),
          to: attacker.address,
          value: 100n * ATTACK_TX_COST,
          maxFeePerGas: 10n * GWEI,
          maxPriorityFeePerGas: GWEI,
        }),
      ),
    );
    expect(funding.every((response) => typeof response.result === "string")).toBe(true);
    expect((await receipt(funding.at(-1)!.result))?.status).toBe("0x1");

    const refusals = new Map<string, number>();
    let admitted = 0;
    for (let i = 0; i < raws.length; i += BATCH) {
      for (const response of await batch(raws.slice(i, i + BATCH))) {
        if (response.result) admitted++;
        else {
          const reason = response.error!.message.replace(/:.*/, "");
          refusals.set(reason, (refusals.get(reason) ?? 0) + 1);
        }
      }
    }
    expect(admitted).toBe(1024);
    expect([...refusals.keys()].sort()).toEqual(["account limit exceeded", "transaction underpriced"]);

    const status = (await rpc(t.url, "txpool_status")).result;
    expect(status).toEqual({ pending: "0x0", queued: "0x400" });
    const content = (await rpc(t.url, "txpool_content")).result as {
      queued: Record<string, Record<string, unknown>>;
    };
    const perAccount = Object.values(content.queued).map((byNonce) => Object.keys(byNonce).length);
    expect(Math.max(...perAccount)).toBe(64);

    const honest = t.node.devAccounts[1]!;
    const sent = await rpc(t.url, "eth_sendRawTransaction", [
      signTransfer(honest.privateKey, {
        nonce: 0n,
        to: funder.address,
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: GWEI,
      }),
    ]);
    expect(sent.error).toBeUndefined();
    expect((await receipt(sent.result))?.status).toBe("0x1");
  }, 120_000);
});

/** A pool small enough to fill in a test: three pending transactions, queued ones live 300 ms. */
const SMALL_POOL = { maxTotal: 3, queuedLifetimeMs: 300 };

describe("hostile input: a small pool's own rules, over the wire", () => {
  let small: TestNode;
  beforeAll(async () => {
    // Manual mining: what is sent stays in the pool until the test mines.
    small = await startTestNode({ mining: { mode: "manual" }, txpool: SMALL_POOL });
  });
  afterAll(() => small.stop());

  const send = async (raw: string) => (await rpc(small.url, "eth_sendRawTransaction", [raw])) as Response;
  const status = async () => (await rpc(small.url, "txpool_status")).result;
  const mine = () => rpc(small.url, "evm_mine");

  it("drops a queued (future-nonce) transaction once its lifetime has passed", async () => {
    const sender = small.node.devAccounts[1]!;
    const gapped = await send(
      signTransfer(sender.privateKey, {
        nonce: 5n,
        to: sender.address,
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: GWEI,
      }),
    );
    expect(gapped.error).toBeUndefined();
    expect(await status()).toEqual({ pending: "0x0", queued: "0x1" });
    await new Promise((resolve) => setTimeout(resolve, SMALL_POOL.queuedLifetimeMs + 100));
    // Expired transactions are swept on every new head (and every minute).
    await mine();
    expect(await status()).toEqual({ pending: "0x0", queued: "0x0" });
    expect((await rpc(small.url, "eth_getTransactionByHash", [gapped.result])).result).toBeNull();
  });

  it("a sender's balance must cover the sum of its pending transactions, not each alone", async () => {
    const funder = small.node.devAccounts[0]!;
    const spender = testAccount(19_000);
    const fee = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI };
    const maxCost = (value: bigint) => 21_000n * fee.maxFeePerGas + value;
    const nonce = BigInt(
      (await rpc(small.url, "eth_getTransactionCount", [funder.address, "latest"])).result as string,
    );
    // Enough for one transfer of 1 STRA and a fraction of a second.
    const value = 10n ** 18n;
    const funded = await send(
      signTransfer(funder.privateKey, {
        nonce,
        to: spender.address,
        value: maxCost(value) + maxCost(value / 2n),
        ...fee,
      }),
    );
    expect(funded.error).toBeUndefined();
    await mine();
    expect(
      (await send(signTransfer(spender.key, { nonce: 0n, to: funder.address, value, ...fee }))).error,
    ).toBeUndefined();
    const second = await send(signTransfer(spender.key, { nonce: 1n, to: funder.address, value, ...fee }));
    expect(second.error?.code).toBe(-32000);
    expect(second.error?.message).toMatch(/^insufficient funds for gas \* price \+ value: .*queued cost/);
    // What the balance still covers is admitted.
    const fits = await send(
      signTransfer(spender.key, { nonce: 1n, to: funder.address, value: value / 2n, ...fee }),
    );
    expect(fits.error).toBeUndefined();
    expect(await status()).toEqual({ pending: "0x2", queued: "0x0" });
    await mine();
    expect(await status()).toEqual({ pending: "0x0", queued: "0x0" });
  });

  it("a full pool evicts its cheapest transaction for a better-paying one, and refuses a cheaper one", async () => {
    const [, a, b, c, d, e] = small.node.devAccounts;
    const paying = async (account: typeof a, tipGwei: bigint) => {
      const nonce = BigInt(
        (await rpc(small.url, "eth_getTransactionCount", [account!.address, "latest"])).result as string,
      );
      return send(
        signTransfer(account!.privateKey, {
          nonce,
          to: account!.address,
          maxFeePerGas: 20n * GWEI,
          maxPriorityFeePerGas: tipGwei * GWEI,
        }),
      );
    };
    const held = [await paying(a, 2n), await paying(b, 3n), await paying(c, 4n)];
    expect(held.map((answer) => answer.error)).toEqual([undefined, undefined, undefined]);
    expect(await status()).toEqual({ pending: "0x3", queued: "0x0" });
    // Full: a better-paying newcomer takes the place of the cheapest (tip 2 gwei).
    const better = await paying(d, 5n);
    expect(better.error).toBeUndefined();
    expect(await status()).toEqual({ pending: "0x3", queued: "0x0" });
    expect((await rpc(small.url, "eth_getTransactionByHash", [held[0]!.result])).result).toBeNull();
    expect((await rpc(small.url, "eth_getTransactionByHash", [better.result])).result).not.toBeNull();
    // One paying no more than the cheapest now held (3 gwei) is refused.
    const cheaper = await paying(e, 3n);
    expect(cheaper.error).toEqual({ code: -32000, message: "transaction underpriced" });
    await mine();
    expect(await status()).toEqual({ pending: "0x0", queued: "0x0" });
  });
});
