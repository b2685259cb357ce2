import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEther } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { devAccount, rpc, viemClients } from "../e2e/clients.js";
import { startTestNode } from "../testing/test-node.js";

const datadir = mkdtempSync(join(tmpdir(), "strata-persist-"));
afterAll(() => rmSync(datadir, { recursive: true, force: true }));

describe("persistence", () => {
  it("finds the chain exactly as it was after a restart", async () => {
    const first = await startTestNode({ datadir });
    const { wallet, publicClient } = viemClients(first.url);
    const hashes: `0x${string}`[] = [];
    for (let i = 0; i < 5; i++) {
      hashes.push(await wallet.sendTransaction({ to: devAccount(6).address, value: parseEther("1") }));
    }
    const receipts = await Promise.all(
      hashes.map((hash) => publicClient.waitForTransactionReceipt({ hash })),
    );
    const head = await publicClient.getBlock();
    const balance = await publicClient.getBalance({ address: devAccount(6).address });
    const midBlock = receipts[2]!.blockNumber;
    const balanceAtMid = await publicClient.getBalance({
      address: devAccount(6).address,
      blockNumber: midBlock,
    });
    await first.stop();

    const second = await startTestNode({ datadir });
    const again = viemClients(second.url).publicClient;
    const headAgain = await again.getBlock();
    expect(headAgain.hash).toBe(head.hash);
    expect(headAgain.stateRoot).toBe(head.stateRoot);
    expect(await again.getBalance({ address: devAccount(6).address })).toBe(balance);
    expect(await again.getBalance({ address: devAccount(6).address, blockNumber: midBlock })).toBe(
      balanceAtMid,
    );
    for (const receipt of receipts) {
      const stored = await again.getTransactionReceipt({ hash: receipt.transactionHash });
      expect(stored.blockHash).toBe(receipt.blockHash);
      expect(stored.gasUsed).toBe(receipt.gasUsed);
    }
    const next = await viemClients(second.url).wallet.sendTransaction({
      to: devAccount(6).address,
      value: 1n,
    });
    const nextReceipt = await again.waitForTransactionReceipt({ hash: next });
    expect(nextReceipt.blockNumber).toBe(head.number + 1n);
    await second.stop();
  });

  it("refuses a datadir that holds another network's chain", async () => {
    const other = mkdtempSync(join(tmpdir(), "strata-other-"));
    try {
      const node = await startTestNode({ datadir: other });
      await node.stop();
      const mainnet = startTestNode({ datadir: other, network: "mainnet" });
      await expect(mainnet).rejects.toThrow(/different chain/);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("serves the genesis block and an empty receipt set for it", async () => {
    const node = await startTestNode({ datadir });
    const genesis = await rpc(node.url, "eth_getBlockByNumber", ["earliest", false]);
    expect((genesis.result as { number: string }).number).toBe("0x0");
    expect((await rpc(node.url, "eth_getBlockReceipts", ["0x0"])).result).toEqual([]);
    await node.stop();
  });
});
