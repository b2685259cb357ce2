import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  type PublicClient,
  parseEther,
} from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../../bin/strata.js", import.meta.url));
/** Node i serves JSON-RPC on BASE_PORT + 2i and p2p on BASE_PORT + 2i + 1. */
const BASE_PORT = 25000;
const sender = mnemonicToAccount("test test test test test test test test test test test junk", {
  addressIndex: 7,
});

const testnetChain = defineChain({
  id: 1337,
  name: "testnet",
  nativeCurrency: { name: "Strata", symbol: "STRA", decimals: 18 },
  rpcUrls: { default: { http: [`http://127.0.0.1:${BASE_PORT}`] } },
});

interface NodeLine {
  readonly name: string;
  readonly pid: number;
  readonly url: string;
  readonly args: string[];
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("strata testnet: four validator processes over p2p", () => {
  const datadir = mkdtempSync(join(tmpdir(), "strata-testnet-"));
  let testnet: ChildProcess;
  let restarted: ChildProcess | undefined;
  const nodes: NodeLine[] = [];
  const clients: PublicClient[] = [];

  beforeAll(async () => {
    testnet = spawn(
      process.execPath,
      [
        BIN,
        "testnet",
        "--base-port",
        String(BASE_PORT),
        "--datadir",
        datadir,
        "--fresh",
        "--log-level",
        "error",
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const ready: string[] = [];
    let current: { name: string; pid: number; url: string } | undefined;
    createInterface({ input: testnet.stdout! }).on("line", (line) => {
      const header = /^(node-\d+) · .* · pid (\d+) · (\S+)$/.exec(line);
      if (header) current = { name: header[1]!, pid: Number(header[2]), url: header[3]! };
      const command = /^ {2}strata (.*)$/.exec(line);
      if (command && current) nodes.push({ ...current, args: command[1]!.split(" ") });
      const match = /^ready (\S+)$/.exec(line);
      if (match) ready.push(match[1]!);
    });
    await until("four ready lines", async () => (ready.length === 4 ? true : undefined), 150_000);
    const chain = defineChain({
      id: 1337,
      name: "testnet",
      nativeCurrency: { name: "Strata", symbol: "STRA", decimals: 18 },
      rpcUrls: { default: { http: [ready[0]!] } },
    });
    for (const url of ready)
      clients.push(createPublicClient({ chain, transport: http(url) }) as PublicClient);
    expect(nodes.map((n) => n.url)).toEqual(ready);
  }, 180_000);

  afterAll(async () => {
    if (testnet?.pid && alive(testnet.pid)) testnet.kill("SIGTERM");
    if (restarted?.pid && alive(restarted.pid)) restarted.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 6_000));
    for (const pid of [...nodes.map((n) => n.pid), restarted?.pid, testnet?.pid]) {
      if (pid !== undefined && alive(pid)) process.kill(pid, "SIGKILL");
    }
    rmSync(datadir, { recursive: true, force: true });
  }, 30_000);

  /** The hash of block `n` on every node, once all of them agree on it. */
  async function agreedHash(n: bigint, ms = 30_000): Promise<string> {
    return until(
      `agreement on block ${n}`,
      async () => {
        const hashes = await Promise.all(
          clients.map((c) => c.getBlock({ blockNumber: n }).then((b) => b.hash)),
        );
        return hashes.every((h) => h === hashes[0]) ? hashes[0]! : undefined;
      },
      ms,
    );
  }

  it("all four validators propose in rotation and every node reports the same chain", async () => {
    await until(
      "block 12",
      async () => ((await clients[0]!.getBlockNumber()) >= 12n ? true : undefined),
      90_000,
    );
    await agreedHash(10n);
    // Every validator seals blocks of its own. On a busy machine a validator's block can come late
    // and a fallback takes its slot, so the rotation is read over a growing window of the chain.
    const miners = new Set<string>();
    let next = 1n;
    await until(
      "a block sealed by each of the four validators",
      async () => {
        const head = await clients[0]!.getBlockNumber();
        for (; next <= head; next++)
          miners.add((await clients[0]!.getBlock({ blockNumber: next })).miner.toLowerCase());
        return miners.size === 4 ? true : undefined;
      },
      60_000,
    );
    expect(miners.size).toBe(4);
    const heads = await Promise.all(clients.map((c) => c.getBlockNumber()));
    // Allowing blocks in flight: every head is within a few blocks of the others.
    expect(Math.max(...heads.map(Number)) - Math.min(...heads.map(Number))).toBeLessThanOrEqual(3);
  }, 120_000);

  it("finality votes travel over gossip: every node reports the same finalized block, at most three behind the head", async () => {
    const finalized = await until(
      "finality close to the head on every node",
      async () => {
        const states = await Promise.all(
          clients.map(async (c) => {
            const [head, fin] = await Promise.all([c.getBlock(), c.getBlock({ blockTag: "finalized" })]);
            return { head: head.number, finalized: fin.number };
          }),
        );
        return states.every((s) => s.finalized > 0n && s.head - s.finalized <= 3n)
          ? states.reduce((low, s) => (s.finalized < low ? s.finalized : low), states[0]!.finalized)
          : undefined;
      },
      60_000,
    );
    const hash = await agreedHash(finalized);
    for (const client of clients) {
      expect((await client.getBlock({ blockNumber: finalized })).hash).toBe(hash);
      expect((await client.getBlock({ blockTag: "safe" })).number).toBeGreaterThanOrEqual(finalized);
    }
  }, 90_000);

  it("a transaction sent to each node in turn is mined once and visible on all four", async () => {
    const start = await clients[0]!.getTransactionCount({ address: sender.address });
    const hashes: `0x${string}`[] = [];
    for (let i = 0; i < 4; i++) {
      const wallet = createWalletClient({
        account: sender,
        chain: testnetChain,
        transport: http(nodes[i]!.url),
      });
      hashes.push(
        await wallet.sendTransaction({
          to: "0x00000000000000000000000000000000000000aa",
          value: parseEther("0.001"),
          nonce: start + i,
          gas: 21_000n,
          maxFeePerGas: 10n ** 10n,
          maxPriorityFeePerGas: 10n ** 9n,
        }),
      );
    }
    for (const hash of hashes) {
      const receipt = await until(
        `receipt of ${hash} on every node`,
        async () => {
          const receipts = await Promise.all(clients.map((c) => c.getTransactionReceipt({ hash })));
          return receipts.every((r) => r.blockHash === receipts[0]!.blockHash) ? receipts[0] : undefined;
        },
        60_000,
      );
      expect(receipt.status).toBe("success");
      await agreedHash(receipt.blockNumber);
    }
    expect(await clients[3]!.getTransactionCount({ address: sender.address })).toBe(start + 4);
  }, 120_000);

  it("kill -9 of one validator: blocks continue; restarted, it syncs to the others' chain", async () => {
    const victim = nodes[3]!;
    process.kill(victim.pid, "SIGKILL");
    const before = await clients[0]!.getBlockNumber();
    await until(
      "blocks without node-3",
      async () => ((await clients[0]!.getBlockNumber()) >= before + 5n ? true : undefined),
      60_000,
    );
    restarted = spawn(process.execPath, [BIN, ...victim.args], { stdio: ["ignore", "pipe", "inherit"] });
    await until(
      "node-3 ready again",
      () =>
        new Promise<true>((resolve) => {
          createInterface({ input: restarted!.stdout! }).on("line", (line) => {
            if (line.startsWith("ready ")) resolve(true);
          });
        }),
      90_000,
    );
    const target = await clients[0]!.getBlockNumber();
    await until(
      "node-3 caught up",
      async () => ((await clients[3]!.getBlockNumber()) >= target ? true : undefined),
      60_000,
    );
    const hash = await agreedHash(target);
    expect((await clients[3]!.getBlock({ blockNumber: target })).hash).toBe(hash);
  }, 180_000);
});
