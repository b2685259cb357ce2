import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Block, createBlockHeaderFromBytesArray } from "@ethereumjs/block";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { STAKING_ADDRESS, Staking } from "@strata/contracts";
import { parseEther } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { slotOrder } from "../consensus/schedule.js";
import { sealBlock, vanityOf, withExtraData } from "../consensus/seal.js";
import { DEV_MNEMONIC, devAccount, viemClients } from "../e2e/clients.js";
import { startTestNode, type TestNode } from "../testing/test-node.js";

/** Blocks the validator produces before the follower starts. */
const BLOCKS = 500;

function validatorKey(address: string): Uint8Array {
  for (let i = 100; i < 104; i++) {
    const account = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: i });
    if (account.address.toLowerCase() === address) return account.getHdKey().privateKey!;
  }
  throw new Error(`no dev validator key for ${address}`);
}

/** `block` with another state root, properly sealed again by its proposer. */
function withForgedStateRoot(block: Block): Block {
  const fields = withExtraData(block.header, vanityOf(block.header)).raw();
  fields[3] = new Uint8Array(32).fill(0xab);
  const header = createBlockHeaderFromBytesArray(fields, {
    common: block.common,
    setHardfork: false,
    skipConsensusFormatValidation: true,
  });
  const unsealed = new Block(header, block.transactions, [], block.withdrawals, { common: block.common });
  return sealBlock(unsealed, validatorKey(block.header.coinbase.toString()));
}

/** A JSON-RPC proxy to `target` that serves `tampered` in place of the raw block with its number. */
async function tamperingProxy(target: string, tampered: Block): Promise<Server> {
  const number = `0x${tampered.header.number.toString(16)}`;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    if (req.method !== "POST") {
      res.statusCode = 404;
      res.end();
      return;
    }
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString();
      const upstream = await fetch(target, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      const requests = JSON.parse(body) as { id: number; method: string; params: unknown[] }[];
      const answer = await upstream.json();
      if (Array.isArray(requests) && Array.isArray(answer)) {
        for (const r of answer as { id: number; result: unknown }[]) {
          const request = requests.find((q) => q.id === r.id);
          if (request?.method === "debug_getRawBlock" && request.params[0] === number) {
            r.result = bytesToHex(tampered.serialize());
          }
        }
      }
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

describe("follower", () => {
  let validator: TestNode;
  let follower: TestNode;

  beforeAll(async () => {
    validator = await startTestNode({ mining: { mode: "manual" } });
    const { wallet } = viemClients(validator.url);
    for (let i = 0; i < BLOCKS / 20; i++) {
      await wallet.sendTransaction({ to: devAccount(7).address, value: parseEther("1") });
      await validator.node.producer.mine(20);
    }
    follower = await startTestNode({ follow: validator.url, mining: { mode: "manual" } });
  });
  afterAll(async () => {
    await follower?.stop();
    await validator?.stop();
  });

  it(`syncs ${BLOCKS} blocks and agrees on every block hash and state root`, async () => {
    await follower.node.follower!.waitForHead(BigInt(BLOCKS));
    for (let n = 0n; n <= BigInt(BLOCKS); n++) {
      const mine = follower.node.chain.blockByNumber(n)!;
      const theirs = validator.node.chain.blockByNumber(n)!;
      expect(bytesToHex(mine.hash())).toBe(bytesToHex(theirs.hash()));
      expect(bytesToHex(mine.header.stateRoot)).toBe(bytesToHex(theirs.header.stateRoot));
    }
    expect(follower.node.follower!.lastRejected).toBeUndefined();
  });

  it("serves reads and forwards raw transactions to its source, then follows the new head", async () => {
    const reader = viemClients(follower.url, 8);
    expect(await reader.publicClient.getBalance({ address: devAccount(7).address })).toBe(
      parseEther(String(10_000 + BLOCKS / 20)),
    );
    const hash = await reader.wallet.sendTransaction({ to: devAccount(9).address, value: 123n });
    expect(validator.node.pool.size).toBe(1);
    await validator.node.producer.mine(1);
    await follower.node.follower!.waitForHead(BigInt(BLOCKS + 1));
    const receipt = await reader.publicClient.getTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(receipt.blockNumber).toBe(BigInt(BLOCKS + 1));
  });

  it("rejects a block whose state root does not match re-execution and keeps its last good head", async () => {
    const bad = withForgedStateRoot(validator.node.chain.blockByNumber(5n)!);
    const proxy = await tamperingProxy(validator.url, bad);
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const victim = await startTestNode({ follow: url, mining: { mode: "manual" } });
    try {
      const deadline = Date.now() + 60_000;
      while (!victim.node.follower!.lastRejected && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(victim.node.follower!.lastRejected).toMatchObject({ number: 5n });
      expect(victim.node.follower!.lastRejected!.reason).toMatch(/state root mismatch/);
      expect(victim.node.chain.head.header.number).toBe(4n);
    } finally {
      await victim.stop();
      proxy.close();
    }
  });

  it("rejects a block sealed by a validator whose turn it was not", async () => {
    const victim = await startTestNode({ follow: "http://127.0.0.1:9", mining: { mode: "manual" } });
    try {
      const block = validator.node.chain.blockByNumber(1n)!;
      const [active] = await viemClients(validator.url).publicClient.readContract({
        address: STAKING_ADDRESS,
        abi: Staking.abi,
        functionName: "activeValidators",
        blockNumber: 0n,
      });
      const stakes = active.map((address) => ({ address: address.toLowerCase(), stake: 1n }));
      // The last fallback of slot 1 may seal only after three timeouts; this block comes one second after genesis.
      const late = slotOrder(stakes, 20n, 1n)[3]!;
      const other = [100, 101, 102, 103]
        .map((i) => mnemonicToAccount(DEV_MNEMONIC, { addressIndex: i }))
        .find((a) => a.address.toLowerCase() === late)!;
      const fields = withExtraData(block.header, vanityOf(block.header)).raw();
      fields[2] = hexToBytes(late as `0x${string}`);
      fields[11] = Uint8Array.of(1);
      const header = createBlockHeaderFromBytesArray(fields, {
        common: block.common,
        setHardfork: false,
        skipConsensusFormatValidation: true,
      });
      const forged = sealBlock(
        new Block(header, [], [], block.withdrawals, { common: block.common }),
        other.getHdKey().privateKey!,
      );
      await expect(victim.node.follower!.importBlock(forged)).rejects.toThrow(/may not seal before/);
      const unsealed = new Block(
        withExtraData(block.header, vanityOf(block.header)),
        [],
        [],
        block.withdrawals,
        {
          common: block.common,
        },
      );
      await expect(victim.node.follower!.importBlock(unsealed)).rejects.toThrow(/missing or invalid seal/);
      expect(victim.node.chain.head.header.number).toBe(0n);
      await victim.node.follower!.importBlock(block);
      expect(victim.node.chain.head.header.number).toBe(1n);
    } finally {
      await victim.stop();
    }
  });
});
