import { type Database, INDEXER_MIGRATIONS, indexerDb, migrate } from "@strata/db";
import { rpcRequest } from "@strata/protocol";
import { type Logger, pino } from "pino";
import { buildIndexedBlock, TokenRegistry } from "./block-builder.js";
import type { FetchedBlock } from "./block-fetcher.js";
import { BlockFetcher, BlockUnavailableError } from "./block-fetcher.js";
import { ChainModules } from "./chain-modules.js";
import type { GrowingStructure } from "./growing-structure.js";
import { HeadSubscription, wsUrlOf } from "./head-subscription.js";
import { RpcClient } from "./rpc-client.js";

/** How an {@link Indexer} is set up. */
export interface IndexerOptions {
  /** The node's HTTP JSON-RPC URL. */
  readonly rpcUrl: string;
  /** Its WebSocket URL for `newHeads` (default: the RPC URL with `ws://`); `null` polls only. */
  readonly wsUrl?: string | null;
  /** Where the index lives; migrated on {@link Indexer.open}. */
  readonly db: Database;
  /** Blocks per batched fetch during backfill (default 50). */
  readonly batchSize?: number;
  /** How often to ask for the head without a `newHeads` notification (default 2,000 ms). */
  readonly pollIntervalMs?: number;
  /** How often to log backfill progress (default 5,000 ms). */
  readonly progressIntervalMs?: number;
  /** Structured log (default: JSON lines on stderr at `logLevel`). */
  readonly logger?: Logger;
  /** Level of the default logger (default `info`). */
  readonly logLevel?: string;
  /** Called with each backfill progress report, besides the log line. */
  readonly onProgress?: (progress: BackfillProgress) => void;
  /** How a failing round is retried before the indexer reports itself failed. */
  readonly retry?: RetryPolicy;
}

/**
 * Retries of a round that fails (a block that cannot be fetched, built or written): `attempts`
 * tries with a delay doubling from `initialDelayMs` up to `maxDelayMs`, then the indexer is `failed`
 * and tries again every `failedRetryMs`, each attempt logged at error level.
 */
export interface RetryPolicy {
  /** Consecutive failed attempts before the state becomes `failed` (default 5). */
  readonly attempts?: number;
  /** Delay after the first failure (default 1,000 ms). */
  readonly initialDelayMs?: number;
  /** Longest delay between attempts before `failed` (default 30,000 ms). */
  readonly maxDelayMs?: number;
  /** Delay between attempts once `failed` (default 300,000 ms). */
  readonly failedRetryMs?: number;
}

/** `ok` while rounds succeed, `retrying` after a failed one, `failed` once the retries ran out. */
export type IndexerHealth = "ok" | "retrying" | "failed";

/** A backfill progress report. */
export interface BackfillProgress {
  readonly indexedBlock: number;
  readonly headBlock: number;
  readonly blocksPerSecond: number;
  /** True for the report at the end of a backfill. */
  readonly done: boolean;
}

/** Where the indexer stands. */
export interface IndexerStatus {
  /** Last block committed to the database (`-1` before genesis). */
  readonly indexedBlock: number;
  /** The node's head at the last look (`null` before the first). */
  readonly headBlock: number | null;
  /** Blocks the index is behind the node. */
  readonly lag: number;
  /** Whether `newHeads` notifications are flowing (otherwise the indexer polls). */
  readonly subscribed: boolean;
  /** Reorganisations handled since start. */
  readonly reorgs: number;
  /** The last error met (cleared by the next committed block). */
  readonly lastError: string | null;
  /** Whether rounds succeed, are being retried, or failed past the retry policy. */
  readonly health: IndexerHealth;
  /** The block the failing rounds were trying to index (`null` while `ok`). */
  readonly failingBlock: number | null;
  /** Failed attempts in a row (0 while `ok`). */
  readonly consecutiveFailures: number;
  /** Failed rounds since start. */
  readonly failures: number;
}

const SIDE_REFRESH_MS = 15_000;
const PREFETCH = 3;
const BACKFILL_BLOCKS = 10n;
const STATUS_LOG_MS = 60_000;
const RETRY_DEFAULTS = { attempts: 5, initialDelayMs: 1_000, maxDelayMs: 30_000, failedRetryMs: 300_000 };
const MAX_ERROR_TEXT = 500;
const hex = (n: bigint) => `0x${n.toString(16)}`;

/**
 * Keeps a PostgreSQL index in step with a node: backfills in batched JSON-RPC requests, then follows
 * `newHeads`. Each block is one SQL transaction that also advances `indexer_state`, so a crash at any
 * point resumes at the next block with nothing lost or repeated. A block whose parent hash does not
 * match the stored tip triggers a rewind to the last common block.
 */
export class Indexer {
  readonly #db: Database;
  readonly #rpc: RpcClient;
  readonly #fetcher: BlockFetcher;
  readonly #modules: ChainModules;
  readonly #tokens = new TokenRegistry();
  readonly #log: Logger;
  readonly #options: IndexerOptions;
  #tip = -1n;
  #tipHash: string | null = null;
  #head: bigint | null = null;
  #reorgs = 0;
  #lastError: string | null = null;
  #consecutiveFailures = 0;
  #failures = 0;
  #heads: HeadSubscription | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;
  #wake: (() => void) | undefined;
  #lastSideRefresh = 0;
  #lastStatusLog = 0;

  private constructor(options: IndexerOptions, rpc: RpcClient, log: Logger) {
    this.#options = options;
    this.#db = options.db;
    this.#rpc = rpc;
    this.#fetcher = new BlockFetcher(rpc);
    this.#log = log;
    this.#modules = new ChainModules(rpc, log);
  }

  /** Migrates the database, checks it indexes the node's chain, and loads the progress. */
  static async open(options: IndexerOptions): Promise<Indexer> {
    const log = (options.logger ?? pino({ level: options.logLevel ?? "info" }, pino.destination(2))).child({
      module: "indexer",
    });
    const rpc = new RpcClient(options.rpcUrl);
    const chainId = BigInt(await rpc.call("eth_chainId", []));
    await migrate(options.db, INDEXER_MIGRATIONS);
    const indexer = new Indexer(options, rpc, log);
    await indexerDb.initIndexerState(options.db, chainId);
    await indexer.#reload();
    return indexer;
  }

  async #reload(): Promise<void> {
    const state = (await indexerDb.readIndexerState(this.#db))!;
    this.#tip = state.blockNumber;
    this.#tipHash = state.blockHash;
    const tokens = await this.#db.query<{ address: string }>("SELECT address FROM tokens");
    this.#tokens.reset(tokens.map((t) => t.address));
  }

  /** Where the indexer stands; also logged with every progress line. */
  status(): IndexerStatus {
    const head = this.#head;
    return {
      indexedBlock: Number(this.#tip),
      headBlock: head === null ? null : Number(head),
      lag: head === null || head < this.#tip ? 0 : Number(head - this.#tip),
      subscribed: this.#heads?.connected ?? false,
      reorgs: this.#reorgs,
      lastError: this.#lastError,
      health: this.#health(),
      failingBlock: this.#consecutiveFailures === 0 ? null : Number(this.#tip + 1n),
      consecutiveFailures: this.#consecutiveFailures,
      failures: this.#failures,
    };
  }

  /** The token registry's two address sets and their bound, for the metrics. */
  structures(): GrowingStructure[] {
    const tokens = this.#tokens;
    return [
      { name: "known_tokens", unit: "entries", bound: tokens.bound, size: () => tokens.sizes.tokens },
      { name: "known_non_tokens", unit: "entries", bound: tokens.bound, size: () => tokens.sizes.notTokens },
    ];
  }

  /** Starts following the node in the background until {@link stop}. */
  start(): void {
    if (this.#running) return;
    const ws = this.#options.wsUrl === undefined ? wsUrlOf(this.#options.rpcUrl) : this.#options.wsUrl;
    if (ws !== null) this.#heads = new HeadSubscription(ws, () => this.#wake?.(), this.#log);
    this.#running = this.#loop();
  }

  /** Stops following; resolves once the block being written is committed. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#heads?.close();
    this.#wake?.();
    await this.#running;
  }

  /** Indexes up to the node's current head once (without following); returns the status. */
  async sync(): Promise<IndexerStatus> {
    await this.#step();
    return this.status();
  }

  #health(): IndexerHealth {
    if (this.#consecutiveFailures === 0) return "ok";
    const attempts = this.#options.retry?.attempts ?? RETRY_DEFAULTS.attempts;
    return this.#consecutiveFailures >= attempts ? "failed" : "retrying";
  }

  async #loop(): Promise<void> {
    while (!this.#stopped) {
      try {
        const caughtUp = await this.#step();
        if (this.#consecutiveFailures > 0) {
          this.#log.info({ block: Number(this.#tip) }, "indexing recovered at block %d", Number(this.#tip));
          this.#consecutiveFailures = 0;
        }
        if (caughtUp) await this.#sleep(this.#options.pollIntervalMs ?? 2_000);
      } catch (error) {
        if (this.#stopped) return;
        await this.#failed(error);
      }
    }
  }

  /**
   * A failed round: retried with a doubling delay, then `failed`, and from then on retried every
   * `failedRetryMs` with each attempt logged as an error. A block is never skipped: every later block
   * is written against its parent, so the index stops at the last good block, visibly.
   */
  async #failed(error: unknown): Promise<void> {
    const policy = { ...RETRY_DEFAULTS, ...this.#options.retry };
    const message = error instanceof Error ? error.message : String(error);
    this.#lastError = message.length > MAX_ERROR_TEXT ? `${message.slice(0, MAX_ERROR_TEXT)}…` : message;
    this.#consecutiveFailures++;
    this.#failures++;
    const block = Number(this.#tip + 1n);
    const fields = { block, attempt: this.#consecutiveFailures, err: this.#lastError };
    let delay: number;
    if (this.#consecutiveFailures < policy.attempts) {
      delay = Math.min(policy.initialDelayMs * 2 ** (this.#consecutiveFailures - 1), policy.maxDelayMs);
      this.#log.warn(
        { ...fields, retryInMs: delay },
        "indexing block %d failed; retrying in %d ms",
        block,
        delay,
      );
    } else {
      delay = policy.failedRetryMs;
      this.#log.error(
        { ...fields, retryInMs: delay },
        "indexing FAILED at block %d after %d attempts; the index stays at block %d, next attempt in %d ms",
        block,
        this.#consecutiveFailures,
        Number(this.#tip),
        delay,
      );
    }
    await this.#reload().catch(() => {});
    await this.#sleep(delay);
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }

  /** One round: checks the tip still belongs to the node's chain, then indexes to the head. True when caught up. */
  async #step(): Promise<boolean> {
    const head = BigInt(await this.#rpc.call("eth_blockNumber", []));
    this.#head = head;
    if (this.#tip >= 0n) {
      const nodeTip = await this.#rpc.call("eth_getBlockByNumber", [hex(this.#tip), false]);
      if (nodeTip?.hash !== this.#tipHash) {
        await this.#rewind();
        return false;
      }
    }
    if (this.#tip >= head) {
      await this.#refreshSideTables(true);
      if (Date.now() - this.#lastStatusLog >= STATUS_LOG_MS) {
        this.#lastStatusLog = Date.now();
        this.#log.info(this.status(), "following: block %d, lag %d", Number(this.#tip), this.status().lag);
      }
      return true;
    }
    await this.#catchUp(head);
    return this.#tip >= head;
  }

  async #catchUp(head: bigint): Promise<void> {
    const batch = BigInt(this.#options.batchSize ?? 50);
    const fetchFrom = (from: bigint) => {
      const count = head - from + 1n < batch ? head - from + 1n : batch;
      const pending = this.#fetcher.fetch(from, Number(count));
      pending.catch(() => {});
      return pending;
    };
    // Catching up more than a few blocks is a backfill: reported as it goes.
    const backfill = head - this.#tip > BACKFILL_BLOCKS;
    const startedAt = Date.now();
    const startTip = this.#tip;
    let lastProgress = startedAt;
    // Up to PREFETCH batches in flight, so fetching overlaps with writing.
    const pending: Promise<FetchedBlock[]>[] = [];
    let nextFrom = this.#tip + 1n;
    const refill = () => {
      while (pending.length < PREFETCH && nextFrom <= head) {
        pending.push(fetchFrom(nextFrom));
        nextFrom += batch;
      }
    };
    refill();
    while (pending.length > 0 && !this.#stopped) {
      let blocks: FetchedBlock[];
      try {
        blocks = await pending.shift()!;
      } catch (error) {
        // The node lost blocks it had announced: its chain changed under us.
        if (error instanceof BlockUnavailableError) return;
        throw error;
      }
      refill();
      for (const fetched of blocks) {
        if (this.#stopped) return;
        if (this.#tip >= 0n && fetched.block.parentHash !== this.#tipHash) {
          await this.#rewind();
          return;
        }
        const number = BigInt(fetched.block.number);
        const data = await buildIndexedBlock(
          fetched,
          this.#rpc,
          this.#tokens,
          this.#modules,
          number === head,
        );
        await indexerDb.writeBlock(this.#db, data);
        this.#tip = number;
        this.#tipHash = fetched.block.hash;
        this.#lastError = null;
      }
      if (backfill && Date.now() - lastProgress >= (this.#options.progressIntervalMs ?? 5_000)) {
        lastProgress = Date.now();
        const rate = Number(this.#tip - startTip) / ((lastProgress - startedAt) / 1000);
        this.#options.onProgress?.({
          indexedBlock: Number(this.#tip),
          headBlock: Number(head),
          blocksPerSecond: Math.round(rate),
          done: false,
        });
        this.#log.info(
          { ...this.status(), blocksPerSecond: Math.round(rate) },
          "backfill: block %d of %d (%d blocks/s, lag %d)",
          Number(this.#tip),
          Number(head),
          Math.round(rate),
          Number(head - this.#tip),
        );
      }
    }
    if (backfill && !this.#stopped) {
      const seconds = (Date.now() - startedAt) / 1000;
      this.#options.onProgress?.({
        indexedBlock: Number(this.#tip),
        headBlock: Number(head),
        blocksPerSecond: Math.round(Number(this.#tip - startTip) / Math.max(seconds, 0.001)),
        done: true,
      });
      this.#log.info(
        { ...this.status(), seconds },
        "indexed blocks %d..%d in %ss",
        Number(startTip + 1n),
        Number(this.#tip),
        seconds.toFixed(1),
      );
    }
    await this.#refreshSideTables(false);
  }

  /** Refreshes DePIN nodes and predictions (state, not history) at most every few seconds. */
  async #refreshSideTables(force: boolean): Promise<void> {
    if (this.#tip < 0n || this.#stopped) return;
    if (!force && Date.now() - this.#lastSideRefresh < SIDE_REFRESH_MS) return;
    if (force && Date.now() - this.#lastSideRefresh < SIDE_REFRESH_MS / 3) return;
    this.#lastSideRefresh = Date.now();
    await this.#modules.refreshDePIN(this.#db, this.#tip);
    await this.#modules.recordPredictions(this.#db, this.#tip);
  }

  /** Finds the highest stored block the node still has, and forgets everything above it. */
  async #rewind(): Promise<void> {
    const from = this.#tip;
    let common = from;
    while (common >= 0n) {
      const low = common - 15n < 0n ? 0n : common - 15n;
      const numbers: bigint[] = [];
      for (let n = common; n >= low; n--) numbers.push(n);
      const remote = await this.#rpc.batch(
        numbers.map((n) => rpcRequest("eth_getBlockByNumber", hex(n), false)),
      );
      const stored = await this.#db.query<{ number: bigint; hash: string }>(
        "SELECT number, hash FROM blocks WHERE number BETWEEN $1 AND $2",
        [low, common],
      );
      const storedHash = new Map(stored.map((r) => [r.number, r.hash]));
      const match = numbers.findIndex((n, i) => remote[i] !== null && remote[i]?.hash === storedHash.get(n));
      if (match >= 0) {
        common = numbers[match]!;
        break;
      }
      common = low - 1n;
    }
    const hash = common >= 0n ? ((await indexerDb.storedBlockHash(this.#db, common)) ?? null) : null;
    await indexerDb.rewindTo(this.#db, common, hash);
    this.#reorgs++;
    this.#log.warn(
      { from: Number(from), to: Number(common) },
      "reorg: rewound from block %d to %d",
      Number(from),
      Number(common),
    );
    await this.#reload();
  }
}
