import { defaultCallWorkers } from "./call-workers.js";
import { type DepinDemoSettings, demoFromNetwork } from "./demo-settings.js";
import { loadNetwork, type NetworkFile } from "./network.js";
import { validateNodeConfig } from "./node-config-schema.js";
import { type ReporterSettings, reporterFromNetwork } from "./reporter-settings.js";

/** How blocks are produced: on every accepted transaction, on a fixed interval, or only on request. */
export type MiningMode = "instant" | "interval" | "manual";

/** Every setting of a node, with its defaults in {@link DEFAULTS}. */
export interface NodeConfig {
  readonly network: NetworkFile;
  /** Directory of the persistent store; `null` keeps the chain in memory (tests). */
  readonly datadir: string | null;
  /**
   * The datadir lasts one run (`strata node --ephemeral`, in memory): its store is never flushed to
   * disk, and each commit runs on the thread that makes it.
   */
  readonly ephemeral: boolean;
  readonly rpc: {
    readonly addr: string;
    readonly port: number;
    readonly maxBodyBytes: number;
    readonly maxBatch: number;
    readonly maxResponseBytes: number;
    readonly corsOrigin: string;
    readonly gasCap: bigint;
    readonly evmTimeoutMs: number;
    /** Largest fee (gas * price) accepted by eth_sendRawTransaction, in wei; 0 disables the check. */
    readonly txFeeCap: bigint;
    readonly maxTxBytes: number;
    /** Most blocks one eth_getLogs may span. */
    readonly maxLogRange: number;
    /** Most logs one eth_getLogs may return. */
    readonly maxLogResults: number;
    /** Longest a call or estimate may wait for the execution queue before it is refused. */
    readonly maxQueueWaitMs: number;
    /** Longest a trace may run: a client's `timeout` above it is lowered to it. */
    readonly traceTimeoutMs: number;
    /** Most struct-logger entries one trace may return (-32005 beyond). */
    readonly traceMaxSteps: number;
    /** Most struct-logger output one trace may return, in JSON bytes (-32005 beyond). */
    readonly traceMaxBytes: number;
    /** Serve `testing_buildBlockV1` on a network without dev accounts too. */
    readonly testingMethods: boolean;
    /** Worker threads that run eth_call over the persistent store; 0 runs calls on the main thread. */
    readonly callWorkers: number;
    /** Open WebSocket connections at most. */
    readonly maxWsConnections: number;
    /** Open WebSocket connections from one remote address at most; 0 for no cap. */
    readonly maxWsConnectionsPerIp: number;
    /**
     * Every WebSocket is pinged this often and dropped when it did not answer the previous ping;
     * Infinity sends no pings (and so closes no idle socket either).
     */
    readonly wsPingIntervalMs: number;
    /** A WebSocket without subscriptions that sends nothing this long is closed (1001); Infinity keeps it. */
    readonly wsIdleTimeoutMs: number;
    /** Subscriptions per WebSocket connection at most. */
    readonly maxSubscriptionsPerConnection: number;
    /** Polling filters one remote address holds at most (HTTP and WebSocket together); 0 for no cap. */
    readonly maxFiltersPerIp: number;
    /** Largest WebSocket message accepted, in bytes. */
    readonly maxWsMessageBytes: number;
    /** A WebSocket client with more than this many bytes queued for it is disconnected. */
    readonly maxWsQueuedBytes: number;
    /**
     * Port of a separate `GET /metrics` listener on `metricsAddr`; `null` serves /metrics on the
     * JSON-RPC port, but only while that listens on a loopback address (else nowhere).
     */
    readonly metricsPort: number | null;
    readonly metricsAddr: string;
  };
  readonly mining: { readonly mode: MiningMode; readonly blockTimeSeconds: number };
  readonly txpool: {
    /** Executable (pending) transactions per sender at most. */
    readonly maxPerSender: number;
    /** Executable (pending) transactions in all at most. */
    readonly maxTotal: number;
    /** Transactions behind a nonce gap (queued) per sender at most. */
    readonly maxQueuedPerSender: number;
    /** Queued transactions in all at most. */
    readonly maxQueuedTotal: number;
    /** A queued transaction is dropped this long after it arrived; Infinity keeps it. */
    readonly queuedLifetimeMs: number;
    readonly priceBumpPercent: number;
  };
  readonly logLevel: string;
  /** How this node seals blocks on a proof-of-stake network; see {@link ValidatorSettings}. */
  readonly validator?: ValidatorSettings;
  /** HTTP JSON-RPC URL of a node to follow instead of producing blocks (its WebSocket is the same URL with ws:). */
  readonly follow?: string;
  /** The built-in price reporter (the network's `reporter` section); null when off. */
  readonly reporter: ReporterSettings | null;
  /** The built-in DePIN demo (the network's `demo` section); null when off. */
  readonly demo: DepinDemoSettings | null;
  /** The peer-to-peer network (docs/network.md). */
  readonly p2p: P2PSettings;
}

/** Peer-to-peer settings: `--p2p.port`, `--p2p.addr`, `--bootnodes`, `--p2p.max-peers`. */
export interface P2PSettings {
  /** Whether the node joins a peer-to-peer network at all (`--p2p.port 0` turns it off). */
  readonly enabled: boolean;
  /** TCP port of the libp2p host; 0 with `enabled` picks a free port (tests). */
  readonly port: number;
  /** Address the host listens on. */
  readonly addr: string;
  /** Multiaddrs (`/ip4/…/tcp/…[/p2p/<peer id>]`) dialled at start and whenever they drop. */
  readonly bootnodes: readonly string[];
  /** Connections kept at most. */
  readonly maxPeers: number;
  /**
   * TEST ONLY (`--test.peer-deny`): serve `test_setDeniedPeers`, which cuts this node off from the
   * peers it names (partition tests). Never set on a real node.
   */
  readonly testPeerDeny?: boolean;
}

/** Sealing settings of a proof-of-stake node. */
export interface ValidatorSettings {
  /** Seal only with this private key (a validator node); without it a dev network seals with its derived keys. */
  readonly key?: Uint8Array;
  /** Dev: validators (addresses, or indices into the genesis validators) whose slots go unsealed. */
  readonly offline?: readonly string[];
  /**
   * TEST ONLY (`--test.double-sign`): each local validator signs two conflicting finality votes at
   * every height, so that it is caught and slashed (docs/consensus.md "Double signing").
   */
  readonly testDoubleSign?: boolean;
}

/** Defaults for every limit (DECISIONS.md "Limits"). */
export const DEFAULTS = {
  rpcAddr: "127.0.0.1",
  rpcPort: 8545,
  maxBodyBytes: 5 * 1024 * 1024,
  maxBatch: 1000,
  maxResponseBytes: 25 * 1024 * 1024,
  corsOrigin: "*",
  gasCap: 50_000_000n,
  evmTimeoutMs: 5000,
  txFeeCap: 10n ** 18n,
  maxTxBytes: 128 * 1024,
  maxLogRange: 10_000,
  maxLogResults: 10_000,
  maxQueueWaitMs: 500,
  traceTimeoutMs: 5000,
  traceMaxSteps: 200_000,
  traceMaxBytes: 25 * 1024 * 1024,
  callWorkers: defaultCallWorkers(),
  maxWsConnections: 10_000,
  maxWsConnectionsPerIp: 64,
  wsPingIntervalMs: 30_000,
  wsIdleTimeoutMs: 5 * 60_000,
  maxSubscriptionsPerConnection: 1024,
  maxFiltersPerIp: 256,
  maxWsMessageBytes: 15 * 1024 * 1024,
  maxWsQueuedBytes: 8 * 1024 * 1024,
  metricsPort: null,
  metricsAddr: "127.0.0.1",
  maxPerSender: 512,
  maxTotal: 20_000,
  maxQueuedPerSender: 64,
  maxQueuedTotal: 1024,
  queuedLifetimeMs: 3 * 3600 * 1000,
  priceBumpPercent: 10,
  logLevel: "info",
  /** The p2p port of every network but dev, whose single process seals for all validators itself. */
  p2pPort: 30303,
  p2pAddr: "0.0.0.0",
  maxPeers: 50,
} as const;

/** Overrides accepted by {@link createNodeConfig}. */
export interface NodeConfigOverrides {
  /** A built-in network's name, a network file's path, or the network itself (default dev). */
  network?: string | NetworkFile;
  datadir?: string | null;
  ephemeral?: boolean;
  rpc?: Partial<NodeConfig["rpc"]>;
  mining?: Partial<NodeConfig["mining"]>;
  txpool?: Partial<NodeConfig["txpool"]>;
  logLevel?: string;
  validator?: ValidatorSettings;
  follow?: string;
  /** Built-in price reporter; null turns it off. Default: the network's (off in testConfig). */
  reporter?: ReporterSettings | null;
  /** Built-in DePIN demo; null turns it off. Default: the network's (off in testConfig). */
  demo?: DepinDemoSettings | null;
  p2p?: Partial<P2PSettings>;
}

/**
 * Builds a full config from defaults, the network's own mining defaults and the given overrides, and
 * validates it against `NodeConfigSchema`: a bad value throws a `NodeConfigError` naming it.
 */
export function createNodeConfig(overrides: NodeConfigOverrides = {}): NodeConfig {
  const network =
    typeof overrides.network === "object" ? overrides.network : loadNetwork(overrides.network ?? "dev");
  const config: NodeConfig = {
    network,
    datadir: overrides.datadir === undefined ? `.strata/${network.name}` : overrides.datadir,
    ephemeral: overrides.ephemeral ?? false,
    rpc: {
      addr: DEFAULTS.rpcAddr,
      port: DEFAULTS.rpcPort,
      maxBodyBytes: DEFAULTS.maxBodyBytes,
      maxBatch: DEFAULTS.maxBatch,
      maxResponseBytes: DEFAULTS.maxResponseBytes,
      corsOrigin: DEFAULTS.corsOrigin,
      gasCap: DEFAULTS.gasCap,
      evmTimeoutMs: DEFAULTS.evmTimeoutMs,
      txFeeCap: DEFAULTS.txFeeCap,
      maxTxBytes: DEFAULTS.maxTxBytes,
      maxLogRange: DEFAULTS.maxLogRange,
      maxLogResults: DEFAULTS.maxLogResults,
      maxQueueWaitMs: DEFAULTS.maxQueueWaitMs,
      traceTimeoutMs: DEFAULTS.traceTimeoutMs,
      traceMaxSteps: DEFAULTS.traceMaxSteps,
      traceMaxBytes: DEFAULTS.traceMaxBytes,
      testingMethods: false,
      callWorkers: DEFAULTS.callWorkers,
      maxWsConnections: DEFAULTS.maxWsConnections,
      maxWsConnectionsPerIp: DEFAULTS.maxWsConnectionsPerIp,
      wsPingIntervalMs: DEFAULTS.wsPingIntervalMs,
      wsIdleTimeoutMs: DEFAULTS.wsIdleTimeoutMs,
      maxSubscriptionsPerConnection: DEFAULTS.maxSubscriptionsPerConnection,
      maxFiltersPerIp: DEFAULTS.maxFiltersPerIp,
      maxWsMessageBytes: DEFAULTS.maxWsMessageBytes,
      maxWsQueuedBytes: DEFAULTS.maxWsQueuedBytes,
      metricsPort: DEFAULTS.metricsPort,
      metricsAddr: DEFAULTS.metricsAddr,
      ...overrides.rpc,
    },
    mining: {
      mode: network.mining.mode,
      blockTimeSeconds: network.mining.blockTime,
      ...overrides.mining,
    },
    txpool: {
      maxPerSender: DEFAULTS.maxPerSender,
      maxTotal: DEFAULTS.maxTotal,
      maxQueuedPerSender: DEFAULTS.maxQueuedPerSender,
      maxQueuedTotal: DEFAULTS.maxQueuedTotal,
      queuedLifetimeMs: DEFAULTS.queuedLifetimeMs,
      priceBumpPercent: DEFAULTS.priceBumpPercent,
      ...overrides.txpool,
    },
    logLevel: overrides.logLevel ?? DEFAULTS.logLevel,
    ...(overrides.validator === undefined ? {} : { validator: overrides.validator }),
    ...(overrides.follow === undefined ? {} : { follow: overrides.follow }),
    reporter: overrides.reporter === undefined ? reporterFromNetwork(network) : overrides.reporter,
    demo: overrides.demo === undefined ? demoFromNetwork(network) : overrides.demo,
    p2p: {
      // The dev network's single process seals for every validator; a --follow replica copies one node.
      enabled: network.name !== "dev" && overrides.follow === undefined,
      port: DEFAULTS.p2pPort,
      addr: DEFAULTS.p2pAddr,
      bootnodes: [],
      maxPeers: DEFAULTS.maxPeers,
      ...overrides.p2p,
    },
  };
  validateNodeConfig(config);
  return config;
}

/** A config for tests: dev network, in-memory store, port 0, no p2p, the given mining mode (default instant). */
export function testConfig(overrides: NodeConfigOverrides = {}): NodeConfig {
  return createNodeConfig({
    network: "dev",
    datadir: null,
    logLevel: "silent",
    reporter: null,
    demo: null,
    ...overrides,
    rpc: { port: 0, ...overrides.rpc },
    p2p: { enabled: false, port: 0, addr: "127.0.0.1", ...overrides.p2p },
  });
}
