import { createRequire } from "node:module";
import { setImmediate as nextTurn } from "node:timers/promises";
import type { Block } from "@ethereumjs/block";
import { bytesToHex } from "@ethereumjs/util";
import { ForecastThread } from "@strata/predictor";
import { isLoopback, type MetricsServer, serveMetricsEndpoint } from "@strata/protocol/metrics-server";
import type { Logger } from "pino";
import { BlockVerifier } from "./chain/block-verifier.js";
import type { Chain } from "./chain/chain.js";
import { openChain } from "./chain/open-chain.js";
import type { NodeConfig } from "./config/node-config.js";
import { createPosEngine } from "./consensus/create-engine.js";
import type { PosEngine } from "./consensus/engine.js";
import { FinalityGadget } from "./consensus/finality.js";
import { readActiveSetAfter, readJailEnd } from "./consensus/system-calls.js";
import { Unjailer } from "./consensus/unjailer.js";
import { VoteJournal } from "./consensus/vote-journal.js";
import { SenderRecovery } from "./crypto/sender-recovery.js";
import { SigningThread } from "./crypto/signing-thread.js";
import { DepinDemo } from "./demo/depin-demo.js";
import { type DevAccount, deriveDevAccounts } from "./dev-accounts.js";
import { BlockExecutor } from "./execution/block/block-executor.js";
import { CallExecutor } from "./execution/call/call-executor.js";
import { Simulator } from "./execution/simulate/simulator.js";
import { chaindataDir } from "./execution/state/chain-storage.js";
import { StateFactory } from "./execution/state/state-factory.js";
import { RecordedCallTraces } from "./execution/tracing/recorded-call-traces.js";
import type { TraceLimits } from "./execution/tracing/trace-options.js";
import { TracingService } from "./execution/tracing/tracing-service.js";
import { CallWorkerPool } from "./execution/worker/call-worker-pool.js";
import { HeavyExecution } from "./execution/worker/heavy-execution.js";
import { HeavyTaskRunner } from "./execution/worker/heavy-tasks.js";
import { FeeOracle } from "./fees/fee-oracle.js";
import { Follower } from "./follower/follower.js";
import { forwardTo } from "./follower/forwarding.js";
import { SourceClient } from "./follower/source-client.js";
import { createLogger } from "./logger.js";
import { prefixed } from "./metrics/bounded-structure.js";
import { NodeMetrics } from "./metrics/node-metrics.js";
import { DePINNodeService } from "./modules/depin/depin-nodes.js";
import { PredictionService } from "./modules/oracle/prediction-service.js";
import { StakingService } from "./modules/staking/staking-service.js";
import { P2PNetwork } from "./network/p2p-network.js";
import { BlockProducer } from "./producer/block-producer.js";
import { DevSnapshots } from "./producer/dev-snapshots.js";
import { DevStateEdits } from "./producer/dev-state-edits.js";
import { PendingBlocks } from "./producer/pending-block.js";
import { createBuiltinReporter } from "./reporter/builtin-reporter.js";
import type { PriceReporter } from "./reporter/price-reporter.js";
import { RpcDispatcher } from "./rpc/dispatcher.js";
import { FilterManager } from "./rpc/filters/filter-manager.js";
import { createMethodRegistry } from "./rpc/methods.js";
import type { RequestGate } from "./rpc/server/access.js";
import { HttpRpcServer } from "./rpc/server/http.js";
import { WebSocketRpcServer } from "./rpc/server/ws.js";
import type { RpcServices } from "./rpc/services.js";
import { SubscriptionManager } from "./rpc/subscriptions/subscription-manager.js";
import { TrieDatabase } from "./storage/trie-db.js";
import { TransactionFiller } from "./transactions/transaction-filler.js";
import { TxPool } from "./txpool/tx-pool.js";

const version = (createRequire(import.meta.url)("../package.json") as { version: string }).version;

/** A running node. */
export interface StrataNode {
  readonly config: NodeConfig;
  readonly chain: Chain;
  readonly pool: TxPool;
  readonly producer: BlockProducer;
  /** The proof-of-stake engine; undefined on a network without consensus. */
  readonly consensus: PosEngine | undefined;
  /** Finality votes, attestations and double-sign evidence; undefined on a network without consensus. */
  readonly finality: FinalityGadget | undefined;
  /** Syncs from the node given by `--follow`; undefined on a node that produces its own blocks. */
  readonly follower: Follower | undefined;
  /** The peer-to-peer network; undefined when p2p is off (`--p2p.port 0`, the dev default). */
  readonly network: P2PNetwork | undefined;
  readonly dispatcher: RpcDispatcher;
  readonly devAccounts: readonly DevAccount[];
  readonly logger: Logger;
  /** The built-in price reporter, running once started when the config enables it. */
  reporter: PriceReporter | null;
  /** The built-in DePIN demo, running once started when the config enables it. */
  demo: DepinDemo | null;
  /** The HTTP JSON-RPC URL, once started. */
  rpcUrl: string;
  /** The WebSocket JSON-RPC URL (same port), once started. */
  wsUrl: string;
  /** Where `GET /metrics` is served once started (`null`: off, see `rpc.metricsPort`). */
  metricsUrl: string | null;
  /** Live figures: head, pool size, WebSocket connections and subscriptions. */
  status(): NodeStatus;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Live figures of a running node. */
export interface NodeStatus {
  readonly head: bigint;
  readonly pendingTransactions: number;
  readonly wsConnections: number;
  readonly subscriptions: number;
  /** Peers that passed the status handshake (0 without p2p). */
  readonly peers: number;
}

/** The longest a scrape of /metrics waits for the execution workers' cache sizes (a busy one answers later). */
const WORKER_SIZES_TIMEOUT_MS = 200;

/** The client version reported by `web3_clientVersion`. */
export const CLIENT_VERSION = `strata/v${version}/${process.platform}-${process.arch}/node${process.version}`;

/** What a node is given from outside, beyond its config. */
export interface NodeOptions {
  /**
   * API keys and rate limits on the node's own port (`strata node --api-keys`). Without one, the port
   * answers everyone without limit and no request pays for the check.
   */
  readonly gate?: RequestGate;
}

/** Composition root: opens the store, the chain and every service, wired together but not yet serving. */
export async function createNode(
  config: NodeConfig,
  logger = createLogger(config.logLevel),
  options: NodeOptions = {},
): Promise<StrataNode> {
  const { kv, common, trieDb, states, store, chain, chainView } = await openChain(
    config.network,
    config.datadir,
    { ephemeral: config.ephemeral },
  );
  const edits = new DevStateEdits();
  // Dev chains record the call traces of what they mine, as anvil does: traces of them need no replay.
  const callTraces = config.network.devAccounts ? new RecordedCallTraces(store) : undefined;
  const pool = new TxPool(chain, config, Date.now, edits);
  const executor = new BlockExecutor(common, states, trieDb, chainView);
  const engine = createPosEngine(config, deriveDevAccounts(config.network));
  const finality = engine
    ? new FinalityGadget({
        chainId: BigInt(config.network.chainId),
        signers: engine.signerKeys,
        isOffline: (address) => engine.isOffline(address),
        votersOf: async (header) =>
          engine.cachedActiveSetAfter(header) ?? (await readActiveSetAfter(common, states, header)),
        headerByHash: (hash) => chain.store.blockByHash(hash)?.header,
        headNumber: () => chain.head.header.number,
        logger: logger.child({ module: "finality" }),
        doubleSign: config.validator?.testDoubleSign === true,
        // A node with validator keys signs their votes for every block, beside the thread that builds them.
        ...(engine.signers.length > 0 ? { signingThread: SigningThread.shared() } : {}),
        // Votes leave the process only over p2p: there a crash and a reorganisation could make a
        // validator vote twice at one height, so its own votes are journaled in the chain store.
        ...(config.p2p.enabled ? { journal: new VoteJournal(kv) } : {}),
      })
    : undefined;
  const source =
    config.follow === undefined
      ? undefined
      : new SourceClient(config.follow, config.follow.replace(/^http/, "ws"));
  // A proof-of-stake node without any key to seal with produces nothing on its own.
  const sealsNothing = config.follow !== undefined || (engine !== undefined && engine.signers.length === 0);
  if (sealsNothing && config.follow === undefined)
    logger.warn("no validator key: this node does not seal blocks");
  const producer = new BlockProducer(
    chain,
    pool,
    executor,
    {
      mode: sealsNothing ? "manual" : config.mining.mode,
      blockTimeSeconds: config.mining.blockTimeSeconds,
      coinbase: new Uint8Array(20),
      edits,
      ...(callTraces ? { callTraces } : {}),
      ...(engine ? { engine } : {}),
    },
    logger.child({ module: "producer" }),
  );
  const devAccounts = deriveDevAccounts(config.network);
  const verifier = new BlockVerifier(
    chain,
    executor,
    trieDb,
    chainView,
    engine,
    (hash) => pool.get(bytesToHex(hash))?.tx,
  );
  const senderRecovery = SenderRecovery.shared();
  const network = config.p2p.enabled
    ? new P2PNetwork({
        settings: config.p2p,
        datadir: config.datadir,
        chainId: config.network.chainId,
        chain,
        pool,
        verifier,
        finality,
        producer,
        senderRecovery,
        maxTxBytes: config.rpc.maxTxBytes,
        sealed: engine !== undefined,
        log: logger.child({ module: "p2p" }),
      })
    : undefined;
  if (network) producer.setProposeGate(() => network.readyToPropose());
  if (engine && finality) {
    engine.attachFinality(finality);
    // Every new head: remember its seal (double-seal detection) and vote for it with the local keys.
    // Of blocks committed together (a reorg's branch, a dev mining run) only the last, the head, is
    // voted for here: only the head's child can still carry an attestation, and the producer signed
    // the votes its own blocks' attestations needed as it built each one's child. Nothing is voted
    // for while the node catches up with its peers (votes for old blocks help nobody). The signing
    // waits for the next turn of the event loop, after the answers the block completes (its
    // transaction's sender waits for one).
    chain.events.on("newHead", ({ block }) => {
      const votes = block === chain.head && network?.readyToPropose() !== false;
      void finality
        .onImportedHeader(block.header)
        .then(() => (votes ? nextTurn().then(() => finality.signLocalVotes(block.header)) : undefined))
        .catch((error: unknown) => logger.warn({ err: error }, "finality vote failed"));
    });
  }
  // A validator among others takes itself out of jail once it is back (dev's offline validators stay).
  const unjailer =
    engine?.waitsForTurn && !sealsNothing
      ? new Unjailer({
          chain,
          pool,
          common,
          signers: engine.signerKeys,
          isOffline: (address) => engine.isOffline(address),
          ready: () => network?.readyToPropose() ?? true,
          inRotation: (header, validator) =>
            engine.cachedActiveSetAfter(header)?.some((v) => v.address === validator && !v.jailed) ?? false,
          jailEnd: (header, validator) => readJailEnd(common, states, header, validator),
          log: logger.child({ module: "unjail" }),
        })
      : undefined;
  const subscriptions = new SubscriptionManager(chain, config.rpc.maxSubscriptionsPerConnection);
  const filters = new FilterManager(chain.events, {
    maxFiltersPerCaller: config.rpc.maxFiltersPerIp || Number.POSITIVE_INFINITY,
  });
  // The svc_ modules read system contracts on their own execution queue, apart from eth_call's.
  const forecasts = new ForecastThread();
  const moduleCalls = new CallExecutor(
    common,
    (block) => chain.stateAt(block),
    chainView,
    config.rpc.gasCap,
    config.rpc.maxQueueWaitMs,
    { timeoutMs: config.rpc.evmTimeoutMs },
  );
  // eth_call runs on worker threads that read the persistent store; an in-memory chain runs calls here.
  const traceLimits: TraceLimits = {
    timeoutMs: config.rpc.traceTimeoutMs,
    maxSteps: config.rpc.traceMaxSteps,
    maxBytes: config.rpc.traceMaxBytes,
  };
  // Execution (eth_call, estimates, traces, simulations, block builds) runs on worker threads that
  // read the persistent store; an in-memory chain, which they cannot read, runs it here (tests).
  const callWorkers =
    config.datadir === null || config.rpc.callWorkers === 0
      ? undefined
      : new CallWorkerPool(
          {
            chaindata: chaindataDir(config.datadir),
            network: config.network,
            gasCap: config.rpc.gasCap,
            maxQueueWaitMs: config.rpc.maxQueueWaitMs,
            evmTimeoutMs: config.rpc.evmTimeoutMs,
            traceLimits,
          },
          config.rpc.callWorkers,
          logger.child({ module: "calls" }),
        );
  // The workers open the state after each block from its parent's caches, told what the block changed
  // (and the active set after it, which a trace replay of its child then need not read).
  if (callWorkers)
    chain.events.on("stateStep", (step) => {
      const activeSet = engine?.cachedActiveSetAt(step.root);
      callWorkers.recordStateStep(activeSet ? { ...step, activeSet } : step);
    });
  // `pending` is built on its own trie node database over the same store: nothing it writes is kept.
  const scratchTrieDb = new TrieDatabase(kv);
  const scratchStates = new StateFactory(scratchTrieDb, common);
  const pendingExecutor = new BlockExecutor(common, scratchStates, scratchTrieDb, chainView);
  const pending = new PendingBlocks({
    chain,
    pool,
    producer,
    executor: pendingExecutor,
    scratchState: (root) => scratchStates.at(root, "lru"),
    coinbase: new Uint8Array(20),
    ...(engine ? { engine } : {}),
    // With execution workers the pending block is made there: this thread runs none of its transactions.
    ...(callWorkers ? { offload: callWorkers } : {}),
    timeoutMs: config.rpc.evmTimeoutMs,
  });
  const stateAt = (block: Block) => pending.stateOf(block) ?? chain.stateAt(block);
  const calls = new CallExecutor(common, stateAt, chainView, config.rpc.gasCap, config.rpc.maxQueueWaitMs, {
    timeoutMs: config.rpc.evmTimeoutMs,
    pending,
    ...(callWorkers ? { offload: callWorkers } : {}),
  });
  const tracing = new TracingService(
    chain,
    chainView,
    config.rpc.gasCap,
    config.rpc.maxQueueWaitMs,
    engine?.storedBlockHooks.bind(engine),
    traceLimits,
  );
  const fees = new FeeOracle(chain);
  const services: RpcServices = {
    config,
    chain,
    pool,
    producer,
    snapshots: new DevSnapshots({ chain, producer, pool, finality }),
    pending,
    senderRecovery,
    calls,
    fees,
    filler: new TransactionFiller({ chain, pool, calls, pending, fees }),
    subscriptions,
    filters,
    devAccounts: new Map(devAccounts.map((a) => [a.address, a.privateKey])),
    impersonated: new Set(),
    clientVersion: CLIENT_VERSION,
    depin: new DePINNodeService(moduleCalls),
    predictions: new PredictionService(moduleCalls, forecasts),
    staking: new StakingService(chain, moduleCalls),
    network,
    execution: new HeavyExecution(
      callWorkers,
      new HeavyTaskRunner({
        source: chain,
        chainView,
        calls,
        tracing,
        simulator: new Simulator({
          common,
          chainView,
          stateAt: (block) => chain.stateAt(block),
          gasCap: config.rpc.gasCap,
          timeoutMs: config.rpc.evmTimeoutMs,
        }),
      }),
      {
        traceTimeoutMs: config.rpc.traceTimeoutMs,
        evmTimeoutMs: config.rpc.evmTimeoutMs,
        maxQueueWaitMs: config.rpc.maxQueueWaitMs,
      },
      callTraces,
    ),
    finality,
    forwarder: source ? forwardTo(source) : undefined,
  };
  const metrics: NodeMetrics = new NodeMetrics({
    headNumber: () => chain.head.header.number,
    headBlockTime: () => {
      const head = chain.head.header;
      const parent = head.number === 0n ? undefined : chain.blockByHash(head.parentHash);
      return parent === undefined ? 0 : Number(head.timestamp - parent.header.timestamp);
    },
    pendingTransactions: () => pool.pendingCount,
    queuedTransactions: () => pool.queuedCount,
    // Read at scrape time, after the server below exists.
    wsConnections: (): number => ws.connections,
    subscriptions: () => subscriptions.size,
    workerCalls: () => callWorkers?.dispatched ?? 0,
    peers: () => network?.peerCount ?? 0,
    importedBlocks: () => network?.importedBlocks ?? { gossip: 0, range: 0 },
    boundedStructures: () => [
      ...chain.boundedStructures(),
      ...trieDb.boundedStructures(),
      ...executor.boundedStructures(),
      ...services.calls.boundedStructures(),
      // The svc_ modules' calls have a result cache of their own.
      ...prefixed("module_", moduleCalls.boundedStructures()),
      // `pending` is built here only without execution workers (they build it on their own).
      ...prefixed("pending_", [...scratchTrieDb.boundedStructures(), ...pendingExecutor.boundedStructures()]),
      ...filters.boundedStructures(),
      {
        name: "subscriptions",
        unit: "entries",
        bound: config.rpc.maxSubscriptionsPerConnection * config.rpc.maxWsConnections,
        size: () => subscriptions.size,
      },
      {
        name: "ws_connections",
        unit: "entries",
        bound: config.rpc.maxWsConnections,
        size: () => ws.connections,
      },
      {
        name: "ws_send_queue_bytes",
        unit: "bytes",
        bound: config.rpc.maxWsQueuedBytes,
        size: () => ws.largestSendQueue,
      },
      {
        name: "txpool_pending",
        unit: "entries",
        bound: config.txpool.maxTotal,
        size: () => pool.pendingCount,
      },
      {
        name: "txpool_queued",
        unit: "entries",
        bound: config.txpool.maxQueuedTotal,
        size: () => pool.queuedCount,
      },
      ...(engine
        ? [{ name: "active_validator_sets", unit: "entries" as const, ...engine.activeSetCache }]
        : []),
      ...(callWorkers?.boundedStructures() ?? []),
      ...(callTraces?.boundedStructures() ?? []),
      ...(options.gate?.structures?.() ?? []),
    ],
    refreshBoundedStructures: async () => {
      await callWorkers?.refreshSizes(WORKER_SIZES_TIMEOUT_MS);
    },
  });
  const follower = source
    ? new Follower(chain, pool, verifier, source, logger.child({ module: "follower" }))
    : undefined;
  const dispatcher = new RpcDispatcher(
    createMethodRegistry(),
    services,
    logger.child({ module: "rpc" }),
    (method, seconds, failed) => metrics.observeRequest(method, seconds, failed),
  );
  // /metrics stays off a public JSON-RPC port: on its own listener, or on a loopback RPC port only.
  const metricsOnRpcPort = config.rpc.metricsPort === null && isLoopback(config.rpc.addr);
  let metricsServer: MetricsServer | undefined;
  const http: HttpRpcServer = new HttpRpcServer(
    dispatcher,
    config.rpc,
    metricsOnRpcPort ? metrics : undefined,
    options.gate,
    () => ({
      status: "ok",
      head: Number(chain.head.header.number),
      peers: network?.peerCount ?? 0,
      p2p: network === undefined ? "off" : network.listening ? "listening" : "stopped",
      syncing: network?.syncing ?? false,
    }),
  );
  const ws: WebSocketRpcServer = new WebSocketRpcServer(
    http.server,
    dispatcher,
    subscriptions,
    config.rpc,
    options.gate,
  );

  const node: StrataNode = {
    config,
    chain,
    pool,
    producer,
    consensus: engine,
    finality,
    follower,
    network,
    dispatcher,
    devAccounts,
    logger,
    reporter: null,
    demo: null,
    rpcUrl: "",
    wsUrl: "",
    metricsUrl: null,
    status: () => ({
      head: chain.head.header.number,
      pendingTransactions: pool.size,
      wsConnections: ws.connections,
      subscriptions: subscriptions.size,
      peers: network?.peerCount ?? 0,
    }),
    async start() {
      // Jobs that arrive while the workers start wait for them (never run on this thread).
      callWorkers?.start();
      node.rpcUrl = await http.listen();
      if (config.rpc.metricsPort !== null) {
        metricsServer = await serveMetricsEndpoint(metrics, config.rpc.metricsAddr, config.rpc.metricsPort);
        node.metricsUrl = metricsServer.url;
      } else if (metricsOnRpcPort) {
        node.metricsUrl = `${node.rpcUrl}/metrics`;
      } else {
        logger.warn("metrics are off: the JSON-RPC port is not loopback and no metrics port is set");
      }
      node.wsUrl = node.rpcUrl.replace(/^http/, "ws");
      pool.start();
      await network?.start();
      if (follower) follower.start();
      else producer.start();
      unjailer?.start();
      logger.info({ url: node.rpcUrl, head: Number(chain.head.header.number) }, "serving JSON-RPC");
      if (config.reporter && config.follow === undefined) {
        node.reporter = createBuiltinReporter(
          config.reporter,
          node.rpcUrl,
          logger.child({ module: "reporter" }),
        );
        node.reporter.start();
      }
      if (config.demo && config.follow === undefined) {
        node.demo = new DepinDemo({
          ...config.demo,
          rpcUrl: node.rpcUrl,
          logger: logger.child({ module: "depin-demo" }),
        });
        node.demo.start();
      }
    },
    async stop() {
      await node.demo?.stop();
      await node.reporter?.stop();
      await ws.close();
      subscriptions.close();
      filters.stop();
      await http.close();
      await metricsServer?.close();
      await follower?.stop();
      unjailer?.stop();
      await network?.stop();
      await producer.stop();
      pool.stop();
      await callWorkers?.close();
      await forecasts.close();
      await store.close();
    },
  };
  return node;
}
