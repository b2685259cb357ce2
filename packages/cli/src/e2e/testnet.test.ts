import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createWalletClient, http, parseEther } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  devChainAt,
  FinalityWatch,
  rpc,
  TEST_PORT_BASE,
  Testnet,
  type TestnetNode,
  until,
} from "./testnet-harness.js";

/** Node i serves JSON-RPC on BASE_PORT + 2i and p2p on BASE_PORT + 2i + 1. */
const BASE_PORT = TEST_PORT_BASE;
const MNEMONIC = "test test test test test test test test test test test junk";
const sender = mnemonicToAccount(MNEMONIC, { addressIndex: 7 });
/** The hostile peer program, run as a process of its own. */
const HOSTILE_PEER = fileURLToPath(new URL("../../../node/src/testing/hostile-peer.ts", import.meta.url));
const reporter = mnemonicToAccount(MNEMONIC, { addressIndex: 8 });

interface ValidatorJson {
  address: string;
  status: string;
  jailed: boolean;
  selfStake: string;
}

describe("strata testnet: four validator processes over p2p", () => {
  const datadir = mkdtempSync(join(tmpdir(), "strata-testnet-"));
  let testnet: Testnet;
  let watch: FinalityWatch;
  let nodes: TestnetNode[];

  beforeAll(async () => {
    testnet = await Testnet.start({ basePort: BASE_PORT, datadir });
    nodes = testnet.nodes;
    watch = new FinalityWatch(testnet);
    watch.start();
  }, 180_000);

  afterAll(async () => {
    watch?.stop();
    await testnet?.stop();
    rmSync(datadir, { recursive: true, force: true });
  }, 30_000);

  const head = (node = nodes[0]!) => node.client.getBlockNumber({ cacheTime: 0 });
  const finalized = async (node: TestnetNode) =>
    (await node.client.getBlock({ blockTag: "finalized" })).number;
  const validatorOn = async (node: TestnetNode, address: string) =>
    (await rpc<ValidatorJson[]>(node.url, "svc_getValidators")).find((v) => v.address === address)!;

  /** The hash of block `n` on every live node, once all of them agree on it. */
  async function agreedHash(n: bigint, ms = 30_000): Promise<string> {
    return until(
      `agreement on block ${n}`,
      async () => {
        const hashes = await Promise.all(
          testnet.live.map((node) => node.client.getBlock({ blockNumber: n }).then((b) => b.hash)),
        );
        return hashes.every((h) => h === hashes[0]) ? hashes[0]! : undefined;
      },
      ms,
    );
  }

  /** Waits until the chain on node 0 has grown by `count` blocks. */
  async function blocksPass(count: bigint, ms = 60_000): Promise<bigint> {
    const from = await head();
    return until(
      `${count} more blocks`,
      async () => ((await head()) >= from + count ? head() : undefined),
      ms,
    );
  }

  /** Waits for a block above `after` sealed by `validator`, on node 0. */
  async function sealedBy(validator: string, after: bigint, ms: number): Promise<bigint> {
    let next = after + 1n;
    return until(
      `a block sealed by ${validator}`,
      async () => {
        const top = await head();
        for (; next <= top; next++) {
          const block = await nodes[0]!.client.getBlock({ blockNumber: next });
          if (block.miner.toLowerCase() === validator) return next;
        }
        return undefined;
      },
      ms,
    );
  }

  it("all four validators propose in rotation and every node reports the same chain", async () => {
    await until("block 12", async () => ((await head()) >= 12n ? true : undefined), 90_000);
    await agreedHash(10n);
    // Every validator seals blocks of its own. On a busy machine a validator's block can come late
    // and a fallback takes its slot, so the rotation is read over a growing window of the chain.
    const miners = new Set<string>();
    let next = 1n;
    await until(
      "a block sealed by each of the four validators",
      async () => {
        const top = await head();
        for (; next <= top; next++)
          miners.add((await nodes[0]!.client.getBlock({ blockNumber: next })).miner.toLowerCase());
        return miners.size === 4 ? true : undefined;
      },
      60_000,
    );
    expect([...miners].sort()).toEqual(nodes.map((n) => n.validator).sort());
    const heads = await Promise.all(nodes.map((n) => head(n)));
    // Allowing blocks in flight: every head is within a few blocks of the others.
    expect(Math.max(...heads.map(Number)) - Math.min(...heads.map(Number))).toBeLessThanOrEqual(3);
  }, 120_000);

  it("finality votes travel over gossip: every node reports the same finalized block, at most three behind the head", async () => {
    const low = await until(
      "finality close to the head on every node",
      async () => {
        const states = await Promise.all(
          nodes.map(async (node) => ({ head: await head(node), finalized: await finalized(node) })),
        );
        return states.every((s) => s.finalized > 0n && s.head - s.finalized <= 3n)
          ? states.reduce((min, s) => (s.finalized < min ? s.finalized : min), states[0]!.finalized)
          : undefined;
      },
      60_000,
    );
    const hash = await agreedHash(low);
    for (const node of nodes) {
      expect((await node.client.getBlock({ blockNumber: low })).hash).toBe(hash);
      expect((await node.client.getBlock({ blockTag: "safe" })).number).toBeGreaterThanOrEqual(low);
    }
  }, 90_000);

  it("a transaction sent to each node in turn is mined once and visible on all four", async () => {
    const start = await nodes[0]!.client.getTransactionCount({ address: sender.address });
    const hashes: `0x${string}`[] = [];
    for (const [i, node] of nodes.entries()) {
      const wallet = createWalletClient({
        account: sender,
        chain: devChainAt(node.url),
        transport: http(node.url),
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
          const receipts = await Promise.all(nodes.map((n) => n.client.getTransactionReceipt({ hash })));
          return receipts.every((r) => r.blockHash === receipts[0]!.blockHash) ? receipts[0] : undefined;
        },
        60_000,
      );
      expect(receipt.status).toBe("success");
      await agreedHash(receipt.blockNumber);
    }
    expect(await nodes[3]!.client.getTransactionCount({ address: sender.address })).toBe(start + 4);
  }, 120_000);

  it("a hostile peer process (duplicate flood, garbage and oversized frames, badly sealed and far-future orphan blocks) is dropped and banned; the network stays live", async () => {
    const hostile = spawn(
      process.execPath,
      ["--import", "tsx", HOSTILE_PEER, testnet.bootnodes[0]!, nodes[0]!.url],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const timer = setTimeout(() => hostile.kill("SIGKILL"), 90_000);
    let output = "";
    hostile.stdout!.on("data", (chunk) => {
      output += String(chunk);
    });
    const code = await new Promise((resolve) => hostile.once("exit", resolve));
    clearTimeout(timer);
    expect(code).toBe(0);
    const seen = JSON.parse(output.trim().split("\n").at(-1)!) as {
      dropped: boolean;
      refused: boolean;
      tx: `0x${string}`;
    };
    expect(seen).toMatchObject({ dropped: true, refused: true });
    // The flooded transaction is mined once and seen by every node; the chain goes on.
    const receipt = await until(
      "the flooded transaction mined",
      () => nodes[1]!.client.getTransactionReceipt({ hash: seen.tx }).catch(() => undefined),
      60_000,
    );
    expect(receipt.status).toBe("success");
    await agreedHash(receipt.blockNumber);
    await blocksPass(3n);
    expect(await rpc<string>(nodes[0]!.url, "net_peerCount")).toBe("0x3");
  }, 150_000);

  /** Finalized on node 0 when the second validator went down. */
  let finalizedWithTwoDown = 0n;

  it("kill -9 of one validator: blocks continue (its slots fall back) and finality continues; it is jailed for its missed slots", async () => {
    const victim = nodes[3]!;
    await testnet.kill(3);
    const finalizedAtKill = await finalized(nodes[0]!);
    await blocksPass(6n);
    await until(
      "finality going on without node-3",
      async () => ((await finalized(nodes[0]!)) >= finalizedAtKill + 4n ? true : undefined),
      60_000,
    );
    await until(
      "node-3 jailed",
      async () => ((await validatorOn(nodes[0]!, victim.validator!)).jailed ? true : undefined),
      90_000,
    );
  }, 180_000);

  it("kill -9 of a second validator: blocks continue, finality stops while two of four are down", async () => {
    const victim = nodes[2]!;
    await testnet.kill(2);
    // Votes already cast may still finalize a block or two in flight.
    await blocksPass(3n);
    finalizedWithTwoDown = await finalized(nodes[0]!);
    await until(
      "node-2 jailed",
      async () => ((await validatorOn(nodes[0]!, victim.validator!)).jailed ? true : undefined),
      90_000,
    );
    // Jailed validators leave the rotation, not the voters: the two left never hold two thirds.
    await blocksPass(8n);
    for (const node of testnet.live) expect(await finalized(node)).toBe(finalizedWithTwoDown);
    expect(watch.highest).toBe(finalizedWithTwoDown);
  }, 180_000);

  it("restarted, both sync, finality resumes, and each proposes again once its jail ends", async () => {
    await Promise.all([testnet.restart(2), testnet.restart(3)]);
    const restartedAt = await head();
    await until(
      "every node at the head, finality close behind again",
      async () => {
        const states = await Promise.all(
          nodes.map(async (node) => ({ head: await head(node), finalized: await finalized(node) })),
        );
        return states.every(
          (s) => s.head >= restartedAt && s.finalized > finalizedWithTwoDown && s.head - s.finalized <= 3n,
        )
          ? true
          : undefined;
      },
      90_000,
    );
    // Each sends unjail() once its cool-down (20 blocks on dev) is over, and is back in the rotation.
    await Promise.all([
      sealedBy(nodes[2]!.validator!, restartedAt, 120_000),
      sealedBy(nodes[3]!.validator!, restartedAt, 120_000),
    ]);
    for (const node of nodes) {
      expect(await validatorOn(node, nodes[2]!.validator!)).toMatchObject({
        jailed: false,
        status: "active",
      });
      expect(await validatorOn(node, nodes[3]!.validator!)).toMatchObject({
        jailed: false,
        status: "active",
      });
    }
  }, 240_000);

  it("a validator made to double-sign over p2p is caught, and the evidence jails and slashes it on every node", async () => {
    const cheat = nodes[1]!;
    await testnet.kill(1);
    await testnet.restart(1, ["--test.double-sign"]);
    const evidence = await until(
      "double-vote evidence on node-0",
      async () => {
        const found = await rpc<
          { kind: string; validator: string; to: `0x${string}`; data: `0x${string}` }[]
        >(nodes[0]!.url, "svc_getDoubleSignEvidence");
        return found.find((e) => e.kind === "vote" && e.validator === cheat.validator);
      },
      60_000,
    );
    // The other honest nodes caught it too, from the votes it gossiped.
    for (const node of [nodes[2]!, nodes[3]!]) {
      const found = await rpc<{ validator: string }[]>(node.url, "svc_getDoubleSignEvidence");
      expect(found.some((e) => e.validator === cheat.validator)).toBe(true);
    }
    // Any account submits it.
    const wallet = createWalletClient({
      account: reporter,
      chain: devChainAt(nodes[0]!.url),
      transport: http(nodes[0]!.url),
    });
    const hash = await wallet.sendTransaction({ to: evidence.to, data: evidence.data, gas: 1_000_000n });
    const receipt = await until(
      "the evidence mined",
      () => nodes[0]!.client.getTransactionReceipt({ hash }),
      60_000,
    );
    expect(receipt.status).toBe("success");
    await blocksPass(1n);
    for (const node of testnet.live) {
      await until(
        `the slashing on ${node.name}`,
        async () => ((await head(node)) >= receipt.blockNumber ? true : undefined),
        30_000,
      );
      expect(await validatorOn(node, cheat.validator!)).toMatchObject({
        jailed: true,
        status: "jailed",
        selfStake: parseEther("4500").toString(),
      });
    }
    // The three honest validators go on.
    await blocksPass(4n);
  }, 180_000);

  it("no node ever reported a finalized block that a later answer contradicts", async () => {
    expect(watch.count).toBeGreaterThan(100);
    expect(await watch.contradictions()).toEqual([]);
  }, 60_000);
});
