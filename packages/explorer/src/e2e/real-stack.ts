import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "@strata/db";
import { createGateway } from "@strata/gateway";
import { Indexer } from "@strata/indexer";
import { BUILTIN_NETWORKS, createNode, type StrataNode, testConfig } from "@strata/node";
import { bytesToHex } from "viem";
import { mnemonicToAccount } from "viem/accounts";

/**
 * Days of daily closes the price reporter seeds: enough for the model to predict (30) and for the
 * walk-forward backtest (90 days of warm-up, then a few weeks of scored origins at 7 days).
 */
const SEEDED_HISTORY_DAYS = 120;

/**
 * Starts an in-memory dev node on port 0 with instant mining, the built-in price reporter (seeding
 * a short history) and the DePIN demo, so validators, staking, DePIN nodes and predictions all have
 * data. The demo's silent device never beats here, so it is inactive from the start.
 */
export async function startDevNode(): Promise<StrataNode> {
  const dev = BUILTIN_NETWORKS.dev;
  const section = dev.reporter!;
  const devKey = (index: number) =>
    bytesToHex(mnemonicToAccount(dev.devAccounts!.mnemonic, { addressIndex: index }).getHdKey().privateKey!);
  const node = await createNode(
    testConfig({
      reporter: {
        privateKey: devKey(section.devKeyIndex),
        everyBlocks: section.everyBlocks,
        maxIntervalSeconds: section.maxIntervalSeconds,
        historyDays: SEEDED_HISTORY_DAYS,
      },
      demo: { privateKey: devKey(dev.demo!.devKeyIndex), silentAfterBlocks: 0, pollMs: 200 },
    }),
  );
  await node.start();
  return node;
}

/** The API side of a dev stack the explorer reads from: indexer into embedded Postgres, and the gateway. */
export interface ApiStack {
  /** Gateway base URL: REST under /v1, JSON-RPC at /rpc, WebSocket at /ws. */
  readonly url: string;
  /** Resolves once the gateway's `/v1/chain` reports block `n` or later (the index caught up). */
  indexed(n: number): Promise<void>;
  close(): Promise<void>;
}

/** An index database opened ahead of the stack that will use it. */
export interface IndexDatabase {
  /** Starts the indexer and the gateway in front of the node at `rpcUrl`/`wsUrl`. */
  startApiStack(rpcUrl: string, wsUrl: string): Promise<ApiStack>;
  /** Removes the database if no stack was started on it. */
  discard(): Promise<void>;
}

/**
 * Opens an embedded PGlite index database. Done before the node starts: loading PGlite blocks the
 * event loop for seconds, long enough for an in-process node to drop idle keep-alive connections
 * under a client's feet.
 */
export async function openIndexDatabase(): Promise<IndexDatabase> {
  const dir = mkdtempSync(join(tmpdir(), "strata-explorer-index-"));
  const db = await openDatabase(undefined, dir);
  const discard = async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return {
    discard,
    async startApiStack(rpcUrl, wsUrl) {
      const indexer = await Indexer.open({ rpcUrl, wsUrl, db, logLevel: "silent" });
      indexer.start();
      const gateway = await createGateway(
        { upstreams: [rpcUrl], port: 0, logLevel: "silent" },
        { database: db },
      );
      await gateway.start();
      return {
        url: gateway.url,
        indexed: async (n) => {
          for (;;) {
            const res = await fetch(`${gateway.url}/v1/chain`);
            if (res.ok && ((await res.json()) as { blockNumber: number }).blockNumber >= n) return;
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        },
        close: async () => {
          await gateway.stop();
          await indexer.stop();
          await discard();
        },
      };
    },
  };
}
