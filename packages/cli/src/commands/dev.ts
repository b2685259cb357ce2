import { rmSync } from "node:fs";
import { join } from "node:path";
import { type Database, openDatabase } from "@strata/db";
import { ExplorerNotBuiltError, type ExplorerServer, startExplorerServer } from "@strata/explorer";
import { type ApiKeyStore, createGateway, type Gateway, GatewayConfigError } from "@strata/gateway";
import { createIndexerMetrics, Indexer } from "@strata/indexer";
import { createLogger } from "@strata/node";
import { type ChildService, startChildService } from "../child-service.js";
import { type FlagSpec, type FlagValues, formatFlags, intFlag, parseFlags } from "../flags.js";
import { untilSignal } from "../signals.js";
import { UsageError } from "../usage-error.js";

/** Flags of `strata dev` (DECISIONS.md "Command line"). */
export const DEV_FLAGS: Record<string, FlagSpec> = {
  port: { type: "string", description: "node JSON-RPC port, HTTP and WebSocket (default 8545)" },
  "api-port": { type: "string", description: "API gateway port (default 4000)" },
  "explorer-port": { type: "string", description: "block explorer port (default 15000)" },
  datadir: { type: "string", description: "chain data and embedded index directory (default .strata/dev)" },
  "block-time": {
    type: "string",
    description: "seconds between blocks (default: a block per transaction batch)",
  },
  "database-url": {
    type: "string",
    description: "postgres:// URL of the index and API keys (default embedded PGlite)",
  },
  "redis-url": { type: "string", description: "redis:// URL of the rate-limit counters (default in memory)" },
  fresh: { type: "boolean", description: "wipe the datadir (chain and index) before starting" },
  "no-demo": {
    type: "boolean",
    description: "do not run the DePIN demo (simulated devices and their heartbeats, docs/depin.md)",
  },
  "log-level": { type: "string", description: "trace | debug | info | warn | error | silent (default info)" },
  help: { type: "boolean", description: "print this help" },
};

/** Help text of `strata dev`. */
export const DEV_HELP = `Usage: strata dev [flags]

Runs the whole local stack on the dev network: the node (JSON-RPC on 8545, in its own process), the
indexer, the API gateway (JSON-RPC, WebSocket, REST on 4000) and the block explorer (on 15000).
Defaults are embedded: chain data under .strata/dev, the index in PGlite, rate limits in memory.
Ctrl-C stops everything; starting again finds the same chain.

Flags (each also read from STRATA_<FLAG>, e.g. STRATA_API_PORT):
${formatFlags(DEV_FLAGS)}`;

/** Label of the key the dev explorer uses; replaced at each start (a key is shown in clear only once). */
const EXPLORER_KEY_LABEL = "strata dev explorer";

/** Time the node process gets to stop cleanly before it is killed. */
const NODE_STOP_GRACE_MS = 4_000;

/** Settings of the local stack, from flags. */
export interface DevSettings {
  readonly nodePort: number;
  readonly apiPort: number;
  readonly explorerPort: number;
  readonly datadir: string;
  readonly blockTime: number | undefined;
  readonly databaseUrl: string | undefined;
  readonly redisUrl: string | undefined;
  readonly fresh: boolean;
  readonly demo: boolean;
  readonly logLevel: string;
}

/** The local stack's settings from `strata dev`'s parsed flags; a malformed URL is a {@link UsageError}. */
export function devSettings(values: FlagValues): DevSettings {
  const text = (name: string) => {
    const value = values[name];
    return typeof value === "string" && value !== "" ? value : undefined;
  };
  const databaseUrl = text("database-url");
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new UsageError(`--database-url: expected a postgres:// URL, got "${databaseUrl}"`);
  }
  const redisUrl = text("redis-url");
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new UsageError(`--redis-url: expected a redis:// URL, got "${redisUrl}"`);
  }
  return {
    nodePort: intFlag(values, "port", 8545, 0, 65535),
    apiPort: intFlag(values, "api-port", 4000, 0, 65535),
    explorerPort: intFlag(values, "explorer-port", 15000, 0, 65535),
    datadir: text("datadir") ?? ".strata/dev",
    blockTime: values["block-time"] === undefined ? undefined : intFlag(values, "block-time", 2, 1, 3600),
    databaseUrl,
    redisUrl,
    fresh: values.fresh === true,
    demo: values["no-demo"] !== true,
    logLevel: text("log-level") ?? "info",
  };
}

/** The `strata node` command line of the stack's node process (dev network, the demo unless `--no-demo`). */
export function devNodeArgs(settings: DevSettings): string[] {
  return [
    "node",
    "--network",
    "dev",
    "--datadir",
    settings.datadir,
    "--rpc.port",
    String(settings.nodePort),
    // The gateway opens a node WebSocket per subscribing client, all from its own address.
    "--rpc.ws-max-per-ip",
    "0",
    // Its callers' filters too: the gateway caps them per caller.
    "--rpc.filters-per-ip",
    "0",
    "--log-level",
    settings.logLevel,
    ...(settings.blockTime === undefined ? [] : ["--block-time", String(settings.blockTime)]),
    ...(settings.demo ? [] : ["--no-demo"]),
  ];
}

/** What `strata dev` started, stopped in reverse order. */
interface DevStack {
  node?: ChildService;
  database?: Database;
  indexer?: Indexer;
  gateway?: Gateway;
  explorer?: ExplorerServer;
}

/**
 * `strata dev`: starts node, indexer, gateway and explorer, prints a `ready <url>` line per endpoint and
 * a summary, and runs until SIGINT/SIGTERM (or until the node process dies).
 */
export async function runDev(argv: readonly string[], out: (line: string) => void): Promise<number> {
  const values = parseFlags(argv, DEV_FLAGS, { command: "dev" });
  if (values.help) {
    out(DEV_HELP);
    return 0;
  }
  const settings = devSettings(values);
  if (settings.fresh) rmSync(settings.datadir, { recursive: true, force: true });
  const stack: DevStack = {};
  try {
    await startStack(stack, settings, out);
  } catch (error) {
    await stopStack(stack);
    if (error instanceof ExplorerNotBuiltError || error instanceof GatewayConfigError) {
      throw new UsageError(error.message);
    }
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new UsageError(`a port is already in use: ${(error as Error).message}`);
    }
    throw error;
  }
  const ended = await Promise.race([untilSignal(), stack.node!.exited.then(() => "node exited" as const)]);
  await stopStack(stack);
  if (ended === "node exited") {
    process.stderr.write("strata dev: the node process exited; the stack has stopped\n");
    return 1;
  }
  out("stopped");
  return 0;
}

async function startStack(
  stack: DevStack,
  settings: DevSettings,
  out: (line: string) => void,
): Promise<void> {
  stack.node = await startChildService(devNodeArgs(settings), 2, out);
  const [rpcUrl, wsUrl] = stack.node.urls as [string, string];
  out(`ready ${rpcUrl}`);
  out(`ready ${wsUrl}`);

  stack.database = await openDatabase(settings.databaseUrl, join(settings.datadir, "index"));
  const indexer = await Indexer.open({
    rpcUrl,
    db: stack.database,
    logger: createLogger(settings.logLevel, "strata-indexer"),
  });
  stack.indexer = indexer;
  indexer.start();

  stack.gateway = await createGateway(
    {
      upstreams: [rpcUrl],
      port: settings.apiPort,
      ...(settings.redisUrl === undefined ? {} : { redisUrl: settings.redisUrl }),
      ...(settings.databaseUrl === undefined ? {} : { databaseUrl: settings.databaseUrl }),
      // Instant mining makes blocks only when there are transactions: an old head is not a fault.
      maxHeadAgeSeconds: settings.blockTime === undefined ? 0 : settings.blockTime * 10,
      logLevel: settings.logLevel,
    },
    {
      database: stack.database,
      logger: createLogger(settings.logLevel, "strata-gateway"),
      // The gateway's registry already carries the process metrics and the cache gauges.
      extraMetrics: [createIndexerMetrics(() => indexer.status(), { processMetrics: false })],
    },
  );
  stack.gateway.metrics.watch(() => indexer.structures());
  await stack.gateway.start();
  out(`ready ${stack.gateway.url}`);
  out(`ready ${stack.gateway.wsUrl}/ws`);

  stack.explorer = await startExplorerServer({
    apiUrl: stack.gateway.url,
    port: settings.explorerPort,
    apiKey: await explorerKey(stack.gateway.keys),
  });
  out(`ready ${stack.explorer.url}`);
  printSummary(stack, settings, out);
}

/** Tier of the explorer page's key: the key is in /config.json for anyone who opens the page. */
export const EXPLORER_KEY_TIER = "developer";

/**
 * Revokes the previous run's explorer key and creates a fresh one of {@link EXPLORER_KEY_TIER}: the page
 * needs more than the keyless 10 calls a second, but whatever it publishes must stay limited.
 */
export async function explorerKey(keys: ApiKeyStore): Promise<string> {
  for (const key of await keys.list()) {
    if (key.label === EXPLORER_KEY_LABEL && key.revokedAt === null) await keys.revoke(key.id);
  }
  return (await keys.create(EXPLORER_KEY_TIER, EXPLORER_KEY_LABEL)).key;
}

function printSummary(stack: DevStack, settings: DevSettings, out: (line: string) => void): void {
  const [rpcUrl, wsUrl] = stack.node!.urls;
  const api = stack.gateway!.url;
  out("");
  out("Strata dev stack · chain id 1337 (0x539)");
  out(`  Node       ${rpcUrl}  ${wsUrl}`);
  out(
    `  API        ${api}  (JSON-RPC ${api}/rpc · WebSocket ${stack.gateway!.wsUrl}/ws · REST ${api}/v1 · docs ${api}/docs)`,
  );
  out(`  Explorer   ${stack.explorer!.url}`);
  out(
    `  Index      ${settings.databaseUrl === undefined ? `embedded PGlite under ${join(settings.datadir, "index")}` : "PostgreSQL"}`,
  );
  out(`  Limits     ${settings.redisUrl === undefined ? "in memory" : "Redis"}`);
  out(`  Chain data ${settings.datadir}`);
  out("Press Ctrl-C to stop.");
}

async function stopStack(stack: DevStack): Promise<void> {
  await stack.explorer?.close();
  await stack.gateway?.stop();
  await stack.indexer?.stop();
  await stack.database?.close();
  await stack.node?.stop(NODE_STOP_GRACE_MS);
}
