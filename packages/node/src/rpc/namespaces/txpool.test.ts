import { getAddress, type Hex, parseGwei } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccount, rpc, viemClients } from "../../e2e/clients.js";
import { startTestNode, type TestNode } from "../../testing/test-node.js";

type PoolTxJson = Record<string, unknown> & { hash: Hex; nonce: Hex; from: Hex };
type ContentJson = {
  pending: Record<string, Record<string, PoolTxJson>>;
  queued: Record<string, Record<string, PoolTxJson>>;
};

async function result<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await rpc(url, method, params);
  expect(response.error, method).toBeUndefined();
  return response.result as T;
}

describe("txpool namespace", () => {
  let t: TestNode;
  const alice = devAccount(0).address;
  const bob = devAccount(1).address;
  const carol = devAccount(2).address;
  const hashes: Record<string, Hex> = {};

  beforeAll(async () => {
    t = await startTestNode({ mining: { mode: "manual" } });
    const fromAlice = viemClients(t.url, 0).wallet;
    const fromBob = viemClients(t.url, 1).wallet;
    // Alice: nonces 0 and 1 are executable, 3 waits behind the gap at 2.
    hashes.alice0 = await fromAlice.sendTransaction({ to: carol, value: 5n, nonce: 0, gas: 21_000n });
    hashes.alice1 = await fromAlice.sendTransaction({
      to: carol,
      value: 6n,
      nonce: 1,
      gas: 30_000n,
      type: "legacy",
      gasPrice: parseGwei("7"),
    });
    hashes.alice3 = await fromAlice.sendTransaction({ to: carol, value: 7n, nonce: 3, gas: 21_000n });
    // Bob: a contract creation, executable.
    hashes.bob0 = await fromBob.sendTransaction({
      data: "0x600060005260206000f3",
      nonce: 0,
      gas: 100_000n,
      maxFeePerGas: parseGwei("9"),
      maxPriorityFeePerGas: parseGwei("1"),
    });
  });

  afterAll(() => t?.stop());

  it("txpool_status counts pending and queued transactions", async () => {
    expect(await result(t.url, "txpool_status")).toEqual({ pending: "0x3", queued: "0x1" });
  });

  it("txpool_content groups by checksummed sender then decimal nonce, as geth", async () => {
    const content = await result<ContentJson>(t.url, "txpool_content");
    expect(Object.keys(content.pending).sort()).toEqual([getAddress(alice), getAddress(bob)].sort());
    expect(Object.keys(content.pending[getAddress(alice)]!).sort()).toEqual(["0", "1"]);
    expect(Object.keys(content.queued)).toEqual([getAddress(alice)]);
    expect(Object.keys(content.queued[getAddress(alice)]!)).toEqual(["3"]);
    const queued = content.queued[getAddress(alice)]!["3"]!;
    expect(queued.hash).toBe(hashes.alice3);
    expect(queued.nonce).toBe("0x3");
    expect(queued.blockHash).toBeNull();
    expect(queued.blockNumber).toBeNull();
    expect(queued.transactionIndex).toBeNull();
    expect(queued.from).toBe(alice.toLowerCase());
    // A pending fee-market transaction quotes its fee cap as gasPrice, as geth does.
    const creation = content.pending[getAddress(bob)]!["0"]!;
    expect(creation.to).toBeNull();
    expect(creation.gasPrice).toBe(`0x${parseGwei("9").toString(16)}`);
    expect(creation.maxFeePerGas).toBe(creation.gasPrice);
    // The same transaction object as eth_getTransactionByHash serves for a pending transaction.
    expect(creation).toEqual(await result(t.url, "eth_getTransactionByHash", [hashes.bob0]));
  });

  it("txpool_contentFrom answers one sender's transactions keyed by nonce", async () => {
    const content = await result<{ pending: Record<string, PoolTxJson>; queued: Record<string, PoolTxJson> }>(
      t.url,
      "txpool_contentFrom",
      [alice],
    );
    expect(Object.keys(content.pending).sort()).toEqual(["0", "1"]);
    expect(content.pending["1"]!.hash).toBe(hashes.alice1);
    expect(Object.keys(content.queued)).toEqual(["3"]);
    expect(await result(t.url, "txpool_contentFrom", [carol])).toEqual({ pending: {}, queued: {} });
  });

  it("txpool_inspect summarises each transaction in geth's words", async () => {
    const inspect = await result<{
      pending: Record<string, Record<string, string>>;
      queued: Record<string, Record<string, string>>;
    }>(t.url, "txpool_inspect");
    const to = getAddress(carol);
    expect(inspect.pending[getAddress(alice)]).toEqual({
      "0": expect.stringMatching(new RegExp(`^${to}: 5 wei \\+ 21000 gas × \\d+ wei$`)),
      "1": `${to}: 6 wei + 30000 gas × 7000000000 wei`,
    });
    expect(inspect.pending[getAddress(bob)]).toEqual({
      "0": "contract creation: 0 wei + 100000 gas × 9000000000 wei",
    });
    expect(inspect.queued[getAddress(alice)]!["3"]).toMatch(new RegExp(`^${to}: 7 wei \\+ 21000 gas`));
  });

  it("rejects a malformed address with -32602", async () => {
    const response = await rpc(t.url, "txpool_contentFrom", ["0x1234"]);
    expect(response.error?.code).toBe(-32602);
  });

  it("empties pending once mined and keeps the gapped transaction queued", async () => {
    await result(t.url, "evm_mine");
    expect(await result(t.url, "txpool_status")).toEqual({ pending: "0x0", queued: "0x1" });
    const fromAlice = viemClients(t.url, 0).wallet;
    await fromAlice.sendTransaction({ to: carol, value: 1n, nonce: 2, gas: 21_000n });
    // Filling the gap promotes nonce 3 to pending.
    expect(await result(t.url, "txpool_status")).toEqual({ pending: "0x2", queued: "0x0" });
  });
});
