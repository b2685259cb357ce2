import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Database, openDatabase } from "@strata/db";
import {
  createGateway,
  type Gateway,
  type GatewayConfigOverrides,
  type GatewayDependencies,
} from "@strata/gateway";
import { Indexer } from "@strata/indexer";
import type { NodeConfigOverrides, StrataNode } from "@strata/node";
import { pino } from "pino";
import { startTestNode } from "../../packages/node/src/testing/test-node.js";
import { scratchDatabase } from "./scratch-database.js";

/** What {@link startTestStack} runs, beyond its defaults. */
export interface TestStackOptions {
  /** Overrides of the node's test config (dev network in memory, port 0, instant mining, no p2p). */
  readonly node?: NodeConfigOverrides;
  /**
   * Where the index and the API keys live: embedded PGlite in a temporary directory (default), or a
   * scratch database on the test PostgreSQL server, which the gateway opens by URL.
   */
  readonly database?: "pglite" | "postgres";
  /** Whether an indexer follows the node (default true). */
  readonly indexer?: boolean;
  /** Gateway settings besides its upstream (the node). */
  readonly gateway?: Omit<GatewayConfigOverrides, "upstreams">;
  readonly gatewayDependencies?: GatewayDependencies;
}

/** A node, an indexer following it and the gateway in front of both, in this process, on port 0. */
export interface TestStack {
  /** The gateway's URL: JSON-RPC at / and /rpc, REST under /v1. */
  readonly url: string;
  /** The gateway's WebSocket URL. */
  readonly wsUrl: string;
  readonly node: StrataNode;
  readonly gateway: Gateway;
  /** The indexer, unless the stack runs without one. */
  readonly indexer: Indexer | undefined;
  /** The index and key database. */
  readonly db: Database;
  /** Its `postgres://` URL on PostgreSQL; undefined on PGlite. */
  readonly databaseUrl: string | undefined;
  /** Resolves once the indexer has taken in block `n`. */
  indexed(n: number): Promise<void>;
  /** Stops everything, in the reverse order of starting, and removes the database. */
  stop(): Promise<void>;
}

/** The gateway's settings in tests: quick health checks, no key cache, silent. */
const TEST_GATEWAY = { port: 0, healthIntervalMs: 200, keyCacheSeconds: 0, logLevel: "silent" } as const;

/**
 * Starts the local stack as `strata dev` composes it, in this process: the database first (loading
 * PGlite blocks the event loop for seconds, long enough for a running node to drop idle keep-alive
 * connections under a client's feet), then the node, the indexer and the gateway.
 */
export async function startTestStack(options: TestStackOptions = {}): Promise<TestStack> {
  const stops: (() => Promise<void>)[] = [];
  const stop = async (): Promise<void> => {
    while (stops.length > 0) await stops.pop()!();
  };
  try {
    const database = await openStackDatabase(options.database ?? "pglite");
    stops.push(database.close);
    const { node, stop: stopNode } = await startTestNode(options.node);
    stops.push(stopNode);
    let indexer: Indexer | undefined;
    if (options.indexer !== false) {
      const started = await Indexer.open({
        rpcUrl: node.rpcUrl,
        wsUrl: node.wsUrl,
        db: database.db,
        logLevel: "silent",
      });
      started.start();
      stops.push(() => started.stop());
      indexer = started;
    }
    const gateway = await createGateway(
      {
        ...TEST_GATEWAY,
        ...(database.url === undefined ? {} : { databaseUrl: database.url }),
        ...options.gateway,
        upstreams: [node.rpcUrl],
      },
      {
        logger: pino({ level: "silent" }),
        ...(database.url === undefined ? { database: database.db } : {}),
        ...options.gatewayDependencies,
      },
    );
    await gateway.start();
    stops.push(() => gateway.stop());
    return {
      url: gateway.url,
      wsUrl: gateway.wsUrl,
      node,
      gateway,
      indexer,
      db: database.db,
      databaseUrl: database.url,
      indexed: async (n) => {
        if (!indexer) throw new Error("this stack runs without an indexer");
        while (indexer.status().indexedBlock < n) await new Promise((resolve) => setTimeout(resolve, 50));
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The stack's database: PGlite in a temporary directory, or a scratch PostgreSQL database. */
async function openStackDatabase(
  kind: "pglite" | "postgres",
): Promise<{ db: Database; url: string | undefined; close(): Promise<void> }> {
  if (kind === "postgres") {
    const scratch = await scratchDatabase();
    return { db: scratch.db, url: scratch.url, close: () => scratch.drop() };
  }
  const dir = mkdtempSync(join(tmpdir(), "strata-test-stack-"));
  const db = await openDatabase(undefined, dir);
  return {
    db,
    url: undefined,
    async close() {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
