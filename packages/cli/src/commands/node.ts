import { readFileSync, rmSync, statSync } from "node:fs";
import {
  createLogger,
  createNode,
  createNodeConfig,
  DEFAULTS,
  datadirNetwork,
  type MiningMode,
  type NodeConfigOverrides,
  privateKeyHex,
  type StrataNode,
  ValidatorSettingsError,
} from "@strata/node";
import { dismissPreloadedWorkers } from "@strata/node/worker-preload";
import { createEphemeralDatadir } from "../ephemeral-datadir.js";
import { durationFlag, type FlagSpec, type FlagValues, formatFlags, intFlag, parseFlags } from "../flags.js";
import { untilSignal } from "../signals.js";
import { UsageError } from "../usage-error.js";
import { nodeAccessFromFlags, openNodeAccess } from "./node-access.js";

/** Flags of `strata node`. */
export const NODE_FLAGS: Record<string, FlagSpec> = {
  network: { type: "string", description: "dev | mainnet | network file (default: the datadir's, else dev)" },
  datadir: { type: "string", description: "chain data directory (default .strata/<network>)" },
  "rpc.addr": { type: "string", description: "JSON-RPC listen address (default 127.0.0.1)" },
  "rpc.port": { type: "string", description: "JSON-RPC port, HTTP and WebSocket (default 8545)" },
  "metrics.port": {
    type: "string",
    description:
      "serve GET /metrics on this port of --metrics.addr only (default: on the JSON-RPC port while --rpc.addr is loopback, else off)",
  },
  "metrics.addr": { type: "string", description: "listen address of --metrics.port (default 127.0.0.1)" },
  "rpc.txfeecap": {
    type: "string",
    description: "largest tx fee accepted, in wei; 0 disables (default 1 STRA)",
  },
  "rpc.call-workers": {
    type: "string",
    description:
      "worker threads running eth_call, estimates, traces, eth_simulateV1; 0 runs them on the main thread (default: one per core, up to 4)",
  },
  "rpc.evmtimeout": {
    type: "string",
    description:
      "wall-clock limit of eth_call, eth_estimateGas, eth_createAccessList, eth_simulateV1, testing_buildBlockV1, e.g. 5s or 500ms; 0 for none (default 5s)",
  },
  "rpc.tracetimeout": {
    type: "string",
    description:
      "longest a debug_trace* / ots_* trace may run; a client's larger timeout is lowered to it (default 5s)",
  },
  "rpc.ws-max-per-ip": {
    type: "string",
    description:
      "WebSocket connections from one address at most, 429 beyond; 0 for no cap (behind a gateway all its clients share its address) (default 64)",
  },
  "rpc.filters-per-ip": {
    type: "string",
    description:
      "polling filters (eth_newFilter and friends) one address holds at most, -32005 beyond; 0 for no cap (behind a gateway all its clients share its address: the gateway caps per caller) (default 256)",
  },
  "rpc.ws-ping-interval": {
    type: "string",
    description:
      "ping every WebSocket this often and drop one that missed the last ping, e.g. 30s; 0 for no pings (default 30s)",
  },
  "rpc.ws-idle-timeout": {
    type: "string",
    description:
      "close a WebSocket without subscriptions that sent nothing this long (checked at each ping), e.g. 5m; 0 keeps it (default 5m)",
  },
  "rpc.testing": {
    type: "boolean",
    description: "serve testing_buildBlockV1 on a network without dev accounts (default: dev only)",
  },
  "txpool.accountslots": {
    type: "string",
    description: "executable (pending) pool transactions per sender at most (default 512)",
  },
  "txpool.globalslots": {
    type: "string",
    description: "executable pool transactions in all at most (default 20000)",
  },
  "txpool.accountqueue": {
    type: "string",
    description: "pool transactions behind a nonce gap (queued) per sender at most (default 64)",
  },
  "txpool.globalqueue": {
    type: "string",
    description: "queued pool transactions in all at most (default 1024)",
  },
  "txpool.lifetime": {
    type: "string",
    description: "how long a queued transaction is kept, e.g. 3h or 90m; 0 keeps it (default 3h)",
  },
  mining: { type: "string", description: "instant | interval | manual (default: the network's)" },
  "block-time": { type: "string", description: "seconds between blocks in interval mode" },
  fresh: { type: "boolean", description: "wipe the datadir before starting" },
  ephemeral: {
    type: "boolean",
    description:
      "keep the chain for this run only, as anvil and Hardhat do: a new datadir in memory (/dev/shm when it has 1 GiB free, else the temp directory), deleted when the node stops; not with --datadir",
  },
  "log-level": { type: "string", description: "trace | debug | info | warn | error | silent (default info)" },
  "no-reporter": { type: "boolean", description: "do not run the network's built-in price reporter (dev)" },
  "no-demo": {
    type: "boolean",
    description: "do not run the network's built-in DePIN demo (dev: simulated devices and heartbeats)",
  },
  follow: {
    type: "string",
    description: "follow the node at this JSON-RPC URL: sync, verify, serve reads, forward transactions",
  },
  "validator-key": {
    type: "string",
    description: "file holding the hex private key of the validator this node seals for",
  },
  "offline-validators": {
    type: "string",
    description: "dev: comma-separated genesis validator indices or addresses that do not seal",
  },
  "p2p.port": {
    type: "string",
    description: "TCP port of the peer-to-peer network; 0 disables p2p (default 30303; dev: 0)",
  },
  "p2p.addr": { type: "string", description: "peer-to-peer listen address (default 0.0.0.0)" },
  bootnodes: {
    type: "string",
    description: "comma-separated multiaddrs of peers to join, e.g. /ip4/10.0.0.1/tcp/30303/p2p/12D3Koo…",
  },
  "p2p.max-peers": { type: "string", description: "most peer connections kept (default 50)" },
  "test.peer-deny": {
    type: "boolean",
    description:
      "TEST ONLY: serve test_setDeniedPeers, which cuts this node off from the peers it names (partition tests)",
  },
  "test.double-sign": {
    type: "boolean",
    description:
      "TEST ONLY: the local validators sign two conflicting finality votes per height, to be caught and slashed",
  },
  "api-keys": {
    type: "boolean",
    description: "enforce the gateway's API keys and rate limits on this port (default: unlimited)",
  },
  "database-url": {
    type: "string",
    description:
      "with --api-keys: postgres:// URL of the key database (default: embedded; also DATABASE_URL)",
  },
  "keys-datadir": {
    type: "string",
    description: "with --api-keys: directory of the embedded key database (default .strata/gateway)",
  },
  "redis-url": {
    type: "string",
    description: "with --api-keys: redis:// URL of the rate-limit counters (default: memory; also REDIS_URL)",
  },
  "limiter-failure": {
    type: "string",
    description: "with --api-keys: open | closed while Redis is unreachable (default open)",
  },
  help: { type: "boolean", description: "print this help" },
};

const MODES: readonly MiningMode[] = ["instant", "interval", "manual"];

/** Help text of `strata node`. */
export const NODE_HELP = `Usage: strata node [flags]

Runs a Strata chain node serving Ethereum JSON-RPC.

The port answers everyone without limit. With --api-keys it takes the keys of \`strata keys\` as
X-API-Key (or ?apiKey=) with the gateway's tiers and limits: no key 10 calls/s per IP, developer 50/s,
enterprise unlimited; an invalid key gets 401, a caller over its limit 429 (docs/gateway.md).

Flags (each also read from STRATA_<FLAG>, e.g. STRATA_RPC_PORT):
${formatFlags(NODE_FLAGS)}`;

/** Builds the node config from parsed flags. */
export function nodeConfigFromFlags(values: FlagValues) {
  const mining = values.mining as string | undefined;
  if (mining !== undefined && !MODES.includes(mining as MiningMode)) {
    throw new UsageError(`--mining: expected instant | interval | manual, got "${mining}"`);
  }
  const blockTime =
    values["block-time"] === undefined ? undefined : intFlag(values, "block-time", 2, 1, 3600);
  const feeCap = values["rpc.txfeecap"];
  if (feeCap !== undefined && (typeof feeCap !== "string" || !/^\d+$/.test(feeCap))) {
    throw new UsageError(`--rpc.txfeecap: expected an integer amount of wei, got "${String(feeCap)}"`);
  }
  const network = values.network as string | undefined;
  const consensus = validatorOverrides(values);
  let config: ReturnType<typeof createNodeConfig>;
  try {
    const datadir = values.datadir as string | undefined;
    config = createNodeConfig({
      // Without --network, a datadir initialised by `strata init` runs its own network.
      ...(network !== undefined
        ? { network }
        : datadir !== undefined
          ? { network: datadirNetwork(datadir) }
          : {}),
      ...(datadir === undefined ? {} : { datadir }),
      ...(values.ephemeral ? { ephemeral: true } : {}),
      rpc: {
        ...(values["rpc.addr"] === undefined ? {} : { addr: values["rpc.addr"] as string }),
        port: intFlag(values, "rpc.port", 8545, 0, 65535),
        ...(values["metrics.port"] === undefined
          ? {}
          : { metricsPort: intFlag(values, "metrics.port", 0, 0, 65535) }),
        ...(values["metrics.addr"] === undefined ? {} : { metricsAddr: values["metrics.addr"] as string }),
        ...(feeCap === undefined ? {} : { txFeeCap: BigInt(feeCap as string) }),
        ...(values["rpc.call-workers"] === undefined
          ? {}
          : { callWorkers: intFlag(values, "rpc.call-workers", 0, 0, 64) }),
        ...(values["rpc.evmtimeout"] === undefined
          ? {}
          : { evmTimeoutMs: durationFlag(values, "rpc.evmtimeout", 0, 3_600_000) }),
        ...(values["rpc.tracetimeout"] === undefined
          ? {}
          : { traceTimeoutMs: durationFlag(values, "rpc.tracetimeout", 0, 3_600_000) }),
        ...(values["rpc.ws-max-per-ip"] === undefined
          ? {}
          : { maxWsConnectionsPerIp: intFlag(values, "rpc.ws-max-per-ip", 0, 0, 1_000_000) }),
        ...(values["rpc.filters-per-ip"] === undefined
          ? {}
          : { maxFiltersPerIp: intFlag(values, "rpc.filters-per-ip", 0, 0, 1_000_000) }),
        ...(values["rpc.ws-ping-interval"] === undefined
          ? {}
          : { wsPingIntervalMs: durationFlag(values, "rpc.ws-ping-interval", 0, 3_600_000) }),
        ...(values["rpc.ws-idle-timeout"] === undefined
          ? {}
          : { wsIdleTimeoutMs: durationFlag(values, "rpc.ws-idle-timeout", 0, 24 * 3_600_000) }),
        ...(values["rpc.testing"] ? { testingMethods: true } : {}),
      },
      txpool: txpoolOverrides(values),
      mining: {
        ...(mining === undefined
          ? blockTime === undefined
            ? {}
            : { mode: "interval" as const }
          : { mode: mining as MiningMode }),
        ...(blockTime === undefined ? {} : { blockTimeSeconds: blockTime }),
      },
      ...(values["log-level"] === undefined ? {} : { logLevel: values["log-level"] as string }),
      ...(values["no-reporter"] ? { reporter: null } : {}),
      ...(values["no-demo"] ? { demo: null } : {}),
      ...p2pOverrides(values),
      ...consensus,
    });
  } catch (error) {
    if (error instanceof Error && /ENOENT/.test(error.message))
      throw new UsageError(`--network: no such network or file "${network ?? "dev"}"`);
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  return config;
}

/** The pool limits (`--txpool.*`, geth's flag names); absent flags keep the defaults. */
function txpoolOverrides(values: FlagValues): NonNullable<NodeConfigOverrides["txpool"]> {
  const count = (name: string, max: number) =>
    values[name] === undefined ? undefined : intFlag(values, name, 0, 1, max);
  const limits = {
    maxPerSender: count("txpool.accountslots", 1_000_000),
    maxTotal: count("txpool.globalslots", 10_000_000),
    maxQueuedPerSender: count("txpool.accountqueue", 1_000_000),
    maxQueuedTotal: count("txpool.globalqueue", 10_000_000),
    queuedLifetimeMs:
      values["txpool.lifetime"] === undefined
        ? undefined
        : durationFlag(values, "txpool.lifetime", 0, 30 * 24 * 3_600_000),
  };
  return Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined));
}

/** The `--p2p.port`, `--p2p.addr`, `--bootnodes`, `--p2p.max-peers` and `--test.peer-deny` settings (only those given). */
function p2pOverrides(values: FlagValues): Pick<NodeConfigOverrides, "p2p"> {
  const p2p: {
    -readonly [K in keyof NonNullable<NodeConfigOverrides["p2p"]>]: NonNullable<
      NodeConfigOverrides["p2p"]
    >[K];
  } = {};
  if (values["p2p.port"] !== undefined) {
    const port = intFlag(values, "p2p.port", DEFAULTS.p2pPort, 0, 65535);
    Object.assign(p2p, port === 0 ? { enabled: false, port } : { enabled: true, port });
  }
  if (values["p2p.addr"] !== undefined) p2p.addr = values["p2p.addr"] as string;
  if (values["p2p.max-peers"] !== undefined) p2p.maxPeers = intFlag(values, "p2p.max-peers", 50, 1, 10_000);
  if (values["test.peer-deny"] === true) p2p.testPeerDeny = true;
  const bootnodes = values.bootnodes as string | undefined;
  if (bootnodes !== undefined) {
    const list = bootnodes
      .split(",")
      .map((entry) => entry.trim())
      .filter((entry) => entry !== "");
    for (const entry of list) {
      if (!/^\/(ip4|ip6|dns4|dns6|dns)\/[^/]+\/tcp\/\d+(\/p2p\/\w+)?$/.test(entry))
        throw new UsageError(
          `--bootnodes: "${entry}" is not a multiaddr like /ip4/1.2.3.4/tcp/30303/p2p/<peer id>`,
        );
    }
    p2p.bootnodes = list;
    // Bootnodes mean joining a network: a dev node given some turns p2p on at the default port.
    if (values["p2p.port"] === undefined) Object.assign(p2p, { enabled: true });
  }
  return Object.keys(p2p).length === 0 ? {} : { p2p };
}

/** The `--follow`, `--validator-key`, `--offline-validators` and `--test.double-sign` settings. */
function validatorOverrides(values: FlagValues): Pick<NodeConfigOverrides, "validator" | "follow"> {
  const follow = values.follow as string | undefined;
  if (follow !== undefined && !/^https?:\/\/[^\s]+$/.test(follow)) {
    throw new UsageError(`--follow: expected an http:// or https:// JSON-RPC URL, got "${follow}"`);
  }
  const keyFile = values["validator-key"] as string | undefined;
  const offline = values["offline-validators"] as string | undefined;
  const doubleSign = values["test.double-sign"] === true;
  const validator = {
    ...(doubleSign ? { testDoubleSign: true } : {}),
    ...(keyFile === undefined ? {} : { key: readValidatorKey(keyFile) }),
    ...(offline === undefined
      ? {}
      : {
          offline: offline
            .split(",")
            .map((entry) => entry.trim())
            .filter((entry) => entry !== ""),
        }),
  };
  return {
    ...(follow === undefined ? {} : { follow }),
    ...(keyFile === undefined && offline === undefined && !doubleSign ? {} : { validator }),
  };
}

/** Reads a validator key file: one 32-byte private key in hex, with or without 0x. */
function readValidatorKey(file: string): Uint8Array {
  let text: string;
  try {
    text = readFileSync(file, "utf8").trim();
  } catch (error) {
    throw new UsageError(`--validator-key: cannot read "${file}": ${(error as Error).message}`);
  }
  const hex = text.startsWith("0x") ? text.slice(2) : text;
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw new UsageError(`--validator-key: "${file}" must hold a 32-byte private key in hex`);
  }
  return Uint8Array.from(Buffer.from(hex, "hex"));
}

/**
 * The warning for a validator key file that other users can read or write (group or other permission
 * bits set), as ssh gives for a private key; undefined when only its owner can, or on Windows.
 */
export function keyFileWarning(file: string): string | undefined {
  if (process.platform === "win32") return undefined;
  const mode = statSync(file).mode & 0o777;
  if ((mode & 0o077) === 0) return undefined;
  return `validator key file "${file}" is accessible by other users (permissions 0${mode.toString(8)}): anyone who reads it can sign as this validator; run chmod 600 "${file}"`;
}

/** `strata node`: runs until SIGINT/SIGTERM, printing `ready <url>` once it serves. */
export async function runNode(argv: readonly string[], out: (line: string) => void): Promise<number> {
  const values = parseFlags(argv, NODE_FLAGS, { command: "node" });
  if (values.help) {
    out(NODE_HELP);
    return 0;
  }
  if (values.ephemeral && values.datadir !== undefined)
    throw new UsageError("--ephemeral makes a datadir of its own: leave out --datadir");
  const accessSettings = nodeAccessFromFlags(values);
  const ephemeral = values.ephemeral ? createEphemeralDatadir() : undefined;
  try {
    return await serveNode(ephemeral ? { ...values, datadir: ephemeral.path } : values, accessSettings, out);
  } finally {
    ephemeral?.remove();
  }
}

async function serveNode(
  values: FlagValues,
  accessSettings: ReturnType<typeof nodeAccessFromFlags>,
  out: (line: string) => void,
): Promise<number> {
  const config = nodeConfigFromFlags(values);
  if (values.fresh && config.datadir) rmSync(config.datadir, { recursive: true, force: true });
  const logger = createLogger(config.logLevel);
  const keyFile = values["validator-key"] as string | undefined;
  const keyWarning = keyFile === undefined ? undefined : keyFileWarning(keyFile);
  if (keyWarning !== undefined) logger.warn({ file: keyFile }, keyWarning);
  const access =
    accessSettings === undefined
      ? undefined
      : await openNodeAccess(accessSettings, (error, message) => logger.warn({ err: error }, message)).catch(
          (error: unknown) => {
            throw new UsageError(`key database: ${(error as Error).message}`);
          },
        );
  try {
    const node = await createNode(config, logger, access === undefined ? {} : { gate: access.gate }).catch(
      (error: unknown) => {
        throw error instanceof ValidatorSettingsError
          ? new UsageError(`--offline-validators: ${error.message}`)
          : error;
      },
    );
    await node.start();
    // Workers started ahead that the node did not take (fewer workers, or none: no datadir).
    void dismissPreloadedWorkers();
    printBanner(node, out);
    if (access !== undefined) out(`API keys and rate limits enforced · counters in ${access.limiterKind}`);
    out(`ready ${node.rpcUrl}`);
    out(`ready ${node.wsUrl}`);
    await untilSignal();
    await node.stop();
  } finally {
    await access?.close();
  }
  return 0;
}

function printBanner(node: StrataNode, out: (line: string) => void): void {
  const { network } = node.config;
  out(
    `Strata node · network ${network.name} · chain id ${network.chainId} · mining ${node.config.mining.mode}`,
  );
  out(`Datadir: ${node.config.datadir ?? "(memory)"} · head block ${node.chain.head.header.number}`);
  if (node.config.follow) out(`Following ${node.config.follow}`);
  else if (node.consensus) {
    const offline = node.consensus.offlineValidators;
    out(
      `Proof of stake · sealing for ${node.consensus.signers.length} key(s)${offline.length > 0 ? ` · offline: ${offline.join(", ")}` : ""}`,
    );
  }
  if (node.network) out(`P2P: ${node.network.multiaddrs.join(" ") || "(not listening)"}`);
  if (node.devAccounts.length > 0) {
    out("");
    out("Available accounts (10,000 STRA each at genesis)");
    node.devAccounts.forEach((a, i) => {
      out(`(${i}) ${a.address}  private key ${privateKeyHex(a)}`);
    });
    out(`Mnemonic: ${network.devAccounts?.mnemonic}`);
    out("");
  }
}
