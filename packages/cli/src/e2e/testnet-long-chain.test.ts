import type { ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestToken } from "@strata/contracts";
import { createPublicClient, createWalletClient, type Hash, http, parseEther } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type ScratchDatabase, scratchDatabase } from "../../../../test/support/scratch-database.js";
import {
  devChainAt,
  FinalityWatch,
  rpc,
  spawnStrata,
  stopChild,
  TEST_PORT_BASE,
  Testnet,
  type TestnetNode,
  until,
} from "./testnet-harness.js";

/** The single-process dev node that makes the long chain serves JSON-RPC here. */
const SEED_PORT = TEST_PORT_BASE + 20;
/** Node i serves JSON-RPC on BASE_PORT + 2i and p2p on BASE_PORT + 2i + 1. */
const BASE_PORT = TEST_PORT_BASE + 22;
/** The full node that joins later: JSON-RPC, then p2p. */
const JOINER_PORT = TEST_PORT_BASE + 30;
/** The indexer following side s of the partition serves its metrics on INDEXER_PORT + s. */
const INDEXER_PORT = TEST_PORT_BASE + 32;
/** Blocks of the chain the network starts from. */
const LONG_CHAIN = 1_000;
const MNEMONIC = "test test test test test test test test test test test junk";
const account = (addressIndex: number) => mnemonicToAccount(MNEMONIC, { addressIndex });

interface LogJson {
  transactionHash: string;
  blockHash: string;
  removed: boolean;
}

/** A `logs` subscription over WebSocket that keeps every notification. */
async function subscribeLogs(
  node: TestnetNode,
  address: string,
): Promise<{ logs: LogJson[]; close(): void }> {
  const socket = new WebSocket(node.wsUrl);
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  const logs: LogJson[] = [];
  const subscribed = new Promise<void>((resolve) => {
    socket.on("message", (data) => {
      const message = JSON.parse(String(data));
      if (message.id === 1) resolve();
      else if (message.method === "eth_subscription") logs.push(message.params.result as LogJson);
    });
  });
  socket.send(
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["logs", { address }] }),
  );
  await subscribed;
  return { logs, close: () => socket.close() };
}

/** Counts of `strata_p2p_imported_blocks_total` by source, from a node's /metrics. */
async function importedBlocks(url: string): Promise<{ gossip: number; range: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const count = (source: string) =>
    Number(
      new RegExp(`^strata_p2p_imported_blocks_total\\{source="${source}"\\} (\\d+)$`, "m").exec(text)?.[1] ??
        0,
    );
  return { gossip: count("gossip"), range: count("range") };
}

/**
 * Makes a 1,000-block chain quickly and honestly: the single-process dev node seals for all four
 * genesis validators (every block in turn, with its attestation), 1,000 blocks one second apart
 * ending in the past, into `datadir`.
 */
async function mineLongChain(datadir: string): Promise<void> {
  const seed = await spawnStrata(
    [
      "node",
      "--network",
      "dev",
      "--datadir",
      datadir,
      "--mining",
      "manual",
      "--rpc.port",
      String(SEED_PORT),
      "--rpc.call-workers",
      "0",
      "--no-reporter",
      "--no-demo",
      "--log-level",
      "error",
    ],
    "the seed node",
  );
  try {
    const url = `http://127.0.0.1:${SEED_PORT}`;
    const start = Math.floor(Date.now() / 1000) - LONG_CHAIN - 200;
    await rpc(url, "evm_setNextBlockTimestamp", [`0x${start.toString(16)}`]);
    await rpc(url, "anvil_mine", [`0x${LONG_CHAIN.toString(16)}`, "0x1"], 180_000);
    expect(await rpc(url, "eth_blockNumber")).toBe(`0x${LONG_CHAIN.toString(16)}`);
  } finally {
    await stopChild(seed);
  }
}

describe("strata testnet on a 1,000-block chain: a full node joins; a partition of two against two heals", () => {
  const datadir = mkdtempSync(join(tmpdir(), "strata-long-chain-"));
  let testnet: Testnet;
  let joiner: ChildProcess | undefined;
  let watch: FinalityWatch;
  let nodes: TestnetNode[];
  let token: `0x${string}`;
  const sides = [
    [0, 1],
    [2, 3],
  ] as const;
  /** One indexer per side of the partition, each following that side's first node into a database of its own. */
  const indexers: { child: ChildProcess; database: ScratchDatabase }[] = [];

  beforeAll(async () => {
    const seed = join(datadir, "seed");
    await mineLongChain(seed);
    // Every validator starts from a copy of that chain (its own key and p2p identity are added).
    for (let i = 0; i < 4; i++) cpSync(seed, join(datadir, "testnet", `node-${i}`), { recursive: true });
    testnet = await Testnet.start({
      basePort: BASE_PORT,
      datadir: join(datadir, "testnet"),
      fresh: false,
      flags: ["--test.peer-deny"],
    });
    nodes = testnet.nodes;
    watch = new FinalityWatch(testnet);
    watch.start();
  }, 300_000);

  afterAll(async () => {
    watch?.stop();
    // One may be missing (an indexer that did not start).
    for (const indexer of indexers.filter(Boolean)) {
      await stopChild(indexer.child);
      await indexer.database.drop();
    }
    if (joiner) await stopChild(joiner);
    await testnet?.stop();
    rmSync(datadir, { recursive: true, force: true });
  }, 30_000);

  const head = (node: TestnetNode) => node.client.getBlockNumber({ cacheTime: 0 });
  const finalized = async (node: TestnetNode) =>
    (await node.client.getBlock({ blockTag: "finalized" })).number;
  const wallet = (index: number, node: TestnetNode) =>
    createWalletClient({ account: account(index), chain: devChainAt(node.url), transport: http(node.url) });

  /** A token transfer of dev account `from` sent to `node`. */
  const transfer = (from: number, node: TestnetNode) =>
    wallet(from, node).writeContract({
      address: token,
      abi: TestToken.abi,
      functionName: "transfer",
      args: [account(9).address, 1n],
      gas: 100_000n,
    });

  it("a full node joining after 1,000 blocks syncs to the head by range from its peers, then follows by gossip", async () => {
    await until(
      "the validators building on the long chain",
      async () => ((await head(nodes[0]!)) >= BigInt(LONG_CHAIN) + 3n ? true : undefined),
      90_000,
    );
    const url = `http://127.0.0.1:${JOINER_PORT}`;
    joiner = await spawnStrata(
      [
        "node",
        "--network",
        "dev",
        "--datadir",
        join(datadir, "joiner"),
        "--rpc.port",
        String(JOINER_PORT),
        "--p2p.port",
        String(JOINER_PORT + 1),
        "--p2p.addr",
        "127.0.0.1",
        "--bootnodes",
        testnet.bootnodes.join(","),
        "--mining",
        "manual",
        "--rpc.call-workers",
        "0",
        "--no-reporter",
        "--no-demo",
        "--log-level",
        "error",
      ],
      "the joining node",
    );
    try {
      const client = createPublicClient({ chain: devChainAt(url), transport: http(url) });
      const target = await head(nodes[0]!);
      await until(
        "the joining node at the head",
        async () => ((await client.getBlockNumber({ cacheTime: 0 })) >= target ? true : undefined),
        150_000,
      );
      const synced = await importedBlocks(url);
      expect(synced.range).toBeGreaterThanOrEqual(LONG_CHAIN);
      // From here on blocks come by gossip: each as it is sealed, no range request needed.
      const at = await client.getBlockNumber({ cacheTime: 0 });
      await until(
        "five blocks by gossip",
        async () => ((await importedBlocks(url)).gossip >= synced.gossip + 5 ? true : undefined),
        60_000,
      );
      const followed = await client.getBlockNumber({ cacheTime: 0 });
      expect(followed).toBeGreaterThanOrEqual(at + 5n);
      await until(
        "the joining node and node-0 on one chain",
        async () => {
          const [ours, theirs] = await Promise.all([
            client.getBlock({ blockNumber: followed }),
            nodes[0]!.client.getBlock({ blockNumber: followed }),
          ]);
          return ours.hash === theirs.hash ? true : undefined;
        },
        30_000,
      );
      expect(await rpc(url, "eth_syncing")).toBe(false);
    } finally {
      // It takes no side in the partition below.
      await stopChild(joiner);
      joiner = undefined;
    }
  }, 240_000);

  it("a token deployed before the partition is on every node", async () => {
    // The indexers of the partition test below start, and take in the long chain, meanwhile.
    const indexersStarted = Promise.all(
      sides.map(async (side, s) => {
        const database = await scratchDatabase();
        const child = await spawnStrata(
          [
            "indexer",
            "--rpc",
            nodes[side[0]]!.url,
            "--database-url",
            database.url,
            "--metrics-port",
            String(INDEXER_PORT + s),
            "--log-level",
            "error",
          ],
          `the indexer of side ${s}`,
        ).catch(async (error: unknown) => {
          await database.drop();
          throw error;
        });
        indexers[s] = { child, database };
      }),
    );
    const hash = await wallet(5, nodes[0]!).deployContract({
      abi: TestToken.abi,
      bytecode: TestToken.bytecode as `0x${string}`,
      args: ["Partition", "PRT", parseEther("1000")],
      gas: 3_000_000n,
    });
    const receipt = await until(
      "the token on every node",
      async () => {
        const receipts = await Promise.all(nodes.map((n) => n.client.getTransactionReceipt({ hash })));
        return receipts.every((r) => r.blockHash === receipts[0]!.blockHash) ? receipts[0] : undefined;
      },
      60_000,
    );
    token = receipt.contractAddress!;
    // Account 6 gets tokens too, so that each side has a sender of its own.
    const funding = await wallet(5, nodes[0]!).writeContract({
      address: token,
      abi: TestToken.abi,
      functionName: "transfer",
      args: [account(6).address, 100n],
      gas: 100_000n,
    });
    await until(
      "account 6 funded on every node",
      async () => {
        const receipts = await Promise.all(
          nodes.map((n) => n.client.getTransactionReceipt({ hash: funding })),
        );
        return receipts.every((r) => r.blockHash === receipts[0]!.blockHash) ? true : undefined;
      },
      60_000,
    );
    await indexersStarted;
  }, 150_000);

  it("partitioned, both sides build, neither finalizes; healed, all converge, the losing side sees its logs removed and its transaction mined again", async () => {
    const subscriptions = await Promise.all(nodes.map((n) => subscribeLogs(n, token)));
    const filters = await Promise.all(
      nodes.map((n) => rpc<string>(n.url, "eth_newFilter", [{ address: token, fromBlock: "latest" }])),
    );
    // Cut every node off from the other side.
    for (const [s, side] of sides.entries()) {
      const others = sides[1 - s]!.map((i) => nodes[i]!.peerId);
      for (const i of side) await rpc(nodes[i]!.url, "test_setDeniedPeers", [others]);
    }
    for (const node of nodes)
      await until(
        `${node.name} sees only its own side`,
        async () => {
          const peers = await rpc<string>(node.url, "net_peerCount");
          return peers === "0x1" ? true : undefined;
        },
        30_000,
      );
    const splitAt = await head(nodes[0]!);
    const finalizedAtSplit = (await Promise.all(nodes.map(finalized))).reduce((a, b) => (a > b ? a : b));

    // Each side mines a transfer of its own sender.
    const sent: Hash[] = [await transfer(5, nodes[0]!), await transfer(6, nodes[2]!)];
    for (const [s, hash] of sent.entries()) {
      const node = nodes[sides[s]![0]]!;
      await until(`side ${s} mines its transfer`, () => node.client.getTransactionReceipt({ hash }), 60_000);
    }
    await until(
      "both sides ten blocks past the split",
      async () => ((await Promise.all(nodes.map(head))).every((h) => h >= splitAt + 10n) ? true : undefined),
      90_000,
    );
    // Each side jails the other side's validators for their missed slots; they still count as voters.
    for (const [s, side] of sides.entries()) {
      const others = sides[1 - s]!.map((i) => nodes[i]!.validator!);
      await until(
        `side ${s} has jailed the other side`,
        async () => {
          const validators = await rpc<{ address: string; jailed: boolean }[]>(
            nodes[side[0]]!.url,
            "svc_getValidators",
          );
          return others.every((a) => validators.find((v) => v.address === a)?.jailed) ? true : undefined;
        },
        90_000,
      );
    }
    const tips = await Promise.all(
      sides.map((side) => nodes[side[0]]!.client.getBlock({ blockNumber: splitAt + 8n })),
    );
    expect(tips[0]!.hash).not.toBe(tips[1]!.hash);
    // Two of four validators on each side: neither holds two thirds, nothing new is finalized, even
    // with the other side jailed.
    for (const node of nodes) expect(await finalized(node)).toBeLessThanOrEqual(finalizedAtSplit + 2n);

    // Each side's indexer has taken in its side's branch.
    for (const [s, { database }] of indexers.entries()) {
      await until(
        `the indexer of side ${s} on its side's branch`,
        async () => {
          const rows = await database.db.query<{ hash: string }>(
            "SELECT hash FROM blocks WHERE number = $1",
            [(splitAt + 8n).toString()],
          );
          return rows[0]?.hash === tips[s]!.hash ? true : undefined;
        },
        60_000,
      );
    }

    // Heal.
    for (const node of nodes) await rpc(node.url, "test_setDeniedPeers", [[]]);
    const healedAt = (await Promise.all(nodes.map(head))).reduce((a, b) => (a > b ? a : b));
    await until(
      "every node on one chain",
      async () => {
        const blocks = await Promise.all(nodes.map((n) => n.client.getBlock({ blockNumber: healedAt })));
        return blocks.every((b) => b.hash === blocks[0]!.hash) ? true : undefined;
      },
      90_000,
    );
    // The side whose block at the split + 8 is gone lost.
    const canonical = await nodes[0]!.client.getBlock({ blockNumber: splitAt + 8n });
    const losing = canonical.hash === tips[0]!.hash ? 1 : 0;
    expect(canonical.hash).toBe(tips[1 - losing]!.hash);
    const lost = sent[losing]!;
    for (const i of sides[losing]!) {
      const { logs } = subscriptions[i]!;
      await until(
        `${nodes[i]!.name}: the lost transfer's log again with removed: true`,
        async () => (logs.some((l) => l.transactionHash === lost && l.removed) ? true : undefined),
        30_000,
      );
      const changes = await rpc<LogJson[]>(nodes[i]!.url, "eth_getFilterChanges", [filters[i]]);
      expect(changes.some((l) => l.transactionHash === lost && l.removed)).toBe(true);
    }
    // Both transfers are on the one chain now: the lost one mined again, in a block of the winning branch.
    for (const hash of sent) {
      const receipt = await until(
        `${hash} on every node`,
        async () => {
          const receipts = await Promise.all(nodes.map((n) => n.client.getTransactionReceipt({ hash })));
          return receipts.every((r) => r.blockHash === receipts[0]!.blockHash) ? receipts[0] : undefined;
        },
        60_000,
      );
      expect(receipt.status).toBe("success");
    }
    for (const subscription of subscriptions) subscription.close();
    // Each side's indexer holds the one chain: the losing side's rewound the blocks, transactions and
    // logs of the dropped branch and took in the winning one.
    const canonicalHashes = await Promise.all(
      Array.from({ length: Number(healedAt - splitAt) + 1 }, (_, i) =>
        nodes[0]!.client.getBlock({ blockNumber: splitAt + BigInt(i) }).then((b) => b.hash),
      ),
    );
    const winning = await Promise.all(sent.map((hash) => nodes[0]!.client.getTransactionReceipt({ hash })));
    for (const [s, { database }] of indexers.entries()) {
      await until(
        `the indexer of side ${s} on the one chain`,
        async () => {
          const rows = await database.db.query<{ hash: string }>(
            "SELECT hash FROM blocks WHERE number BETWEEN $1 AND $2 ORDER BY number",
            [splitAt.toString(), healedAt.toString()],
          );
          return rows.map((r) => r.hash).join() === canonicalHashes.join() ? true : undefined;
        },
        60_000,
      );
      // A transaction mined again after the heal can sit above the range checked above: wait for it.
      for (const [i, hash] of sent.entries()) {
        const indexedIn = async () => {
          const rows = await database.db.query<{ block_hash: string }>(
            "SELECT block_hash FROM transactions WHERE hash = $1",
            [hash],
          );
          const logs = await database.db.query<{ block_number: string }>(
            "SELECT block_number FROM logs WHERE transaction_hash = $1",
            [hash],
          );
          return { blocks: rows.map((r) => r.block_hash), logs: logs.map((l) => BigInt(l.block_number)) };
        };
        await until(
          `transaction ${hash} in the indexer of side ${s}`,
          async () => ((await indexedIn()).blocks.length > 0 ? true : undefined),
          60_000,
        );
        expect(await indexedIn()).toEqual({
          blocks: [winning[i]!.blockHash],
          logs: [winning[i]!.blockNumber],
        });
      }
    }
    // Finality resumes, and no validator sealing again on the winning branch counted as double signing.
    await until(
      "finality past the partition",
      async () => ((await Promise.all(nodes.map(finalized))).every((f) => f > healedAt) ? true : undefined),
      90_000,
    );
    for (const node of nodes) expect(await rpc<unknown[]>(node.url, "svc_getDoubleSignEvidence")).toEqual([]);
  }, 300_000);

  it("no node ever reported a finalized block that a later answer contradicts", async () => {
    expect(watch.count).toBeGreaterThan(50);
    expect(await watch.contradictions()).toEqual([]);
  }, 60_000);
});
