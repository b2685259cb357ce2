import type { Logger } from "pino";
import type { GatewayMetrics } from "../metrics.js";
import { toWsUrl, type UpstreamPool } from "../upstream/upstream-pool.js";
import { UpstreamSocket } from "../upstream/upstream-socket.js";

/**
 * Parameterless reads whose answer changes only when the head does (or never): answered from the
 * cache while a `newHeads` subscription is live.
 */
const HEAD_METHODS: ReadonlySet<string> = new Set([
  "eth_blockNumber",
  "eth_chainId",
  "net_version",
  "eth_gasPrice",
  "eth_maxPriorityFeePerGas",
  "eth_blobBaseFee",
]);

/** Reconnection backoff after the subscription is lost: doubles from the first to the last. */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 2_000;

/** The part of a `newHeads` notification the cache reads. */
interface HeadNotification {
  readonly number?: unknown;
}

/**
 * Answers head-dependent cheap reads ({@link HEAD_METHODS}) without an upstream round trip. The
 * gateway keeps one WebSocket to a healthy upstream with a `newHeads` subscription: each new head
 * sets `eth_blockNumber` from the header and empties the other answers, which are fetched again over
 * that socket on their next miss. A cached answer is served only while the subscription is live, its
 * upstream passes its health checks and its head is not behind the best head the health checks saw,
 * so it is never older than the gateway's view of the head; otherwise calls are proxied as usual.
 */
export class HeadCache {
  private socket: UpstreamSocket | undefined;
  private subscription: string | undefined;
  private upstreamUrl: string | undefined;
  private head: number | undefined;
  /** Result JSON by method, valid for the current head. */
  private readonly results = new Map<string, string>();
  /** Methods being fetched for the current head. */
  private readonly fetching = new Set<string>();
  /** Grows on every head and every loss, so answers fetched for an older head are dropped. */
  private generation = 0;
  private retryMs = RETRY_FIRST_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private connecting = false;
  private stopped = false;

  constructor(
    private readonly pool: UpstreamPool,
    private readonly log: Logger,
    private readonly metrics: GatewayMetrics,
  ) {}

  /** Answers held for the current head (one per head method at most), for the metrics. */
  readonly answers = { size: () => this.results.size, bound: HEAD_METHODS.size };

  /** True when `method` with `params` is one the cache may answer. */
  static covers(method: string, params: readonly unknown[]): boolean {
    return params.length === 0 && HEAD_METHODS.has(method);
  }

  /** True while answers come from the cache (a live subscription at the gateway's best head). */
  get live(): boolean {
    const url = this.upstreamUrl;
    if (this.subscription === undefined || this.head === undefined || url === undefined) return false;
    if (!this.pool.isHealthy(url)) return false;
    const best = this.pool.bestHead();
    return best === undefined || this.head >= best;
  }

  /** Starts subscribing (and re-subscribing after every loss) until {@link stop}. */
  start(): void {
    this.stopped = false;
    void this.connect();
  }

  /**
   * Follows the latest health checks: moves the subscription off an upstream that failed them, and
   * subscribes again when no subscription is live.
   */
  recheck(): void {
    if (this.upstreamUrl !== undefined && !this.pool.isHealthy(this.upstreamUrl)) this.reset();
    if (this.socket === undefined) void this.connect();
    this.metrics.headCacheLive.set(this.live ? 1 : 0);
  }

  /** Closes the subscription; every later call is proxied. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.reset();
  }

  /**
   * The result JSON of a covered parameterless call, or undefined when the call must be proxied
   * (not covered, no live subscription, or not fetched yet for this head: the fetch starts now).
   */
  lookup(method: string, params: readonly unknown[]): string | undefined {
    if (!HeadCache.covers(method, params) || !this.live) return undefined;
    const result = this.results.get(method);
    if (result === undefined) this.fetch(method);
    else this.metrics.headCacheAnswers.inc();
    return result;
  }

  private fetch(method: string): void {
    const socket = this.socket;
    if (socket === undefined || this.fetching.has(method)) return;
    this.fetching.add(method);
    const generation = this.generation;
    void socket.call(method, []).then((answer) => {
      if (generation !== this.generation) return;
      this.fetching.delete(method);
      if (answer.error === undefined && answer.result !== undefined)
        this.results.set(method, JSON.stringify(answer.result));
    });
  }

  private async connect(): Promise<void> {
    if (this.stopped || this.connecting || this.socket !== undefined) return;
    this.connecting = true;
    const url = this.pool.candidateUrls()[0];
    try {
      if (url === undefined || !this.pool.isHealthy(url)) throw new Error("no healthy upstream");
      const socket = await UpstreamSocket.connect(toWsUrl(url), {
        onNotification: (n) => {
          if (socket === this.socket && n.subscription === this.subscription)
            this.newHead(n.result as HeadNotification);
        },
        onLost: () => {
          if (socket !== this.socket) return;
          this.log.warn({ upstream: url }, "head subscription lost; proxying head reads until it is back");
          this.reset();
          this.retryLater();
        },
      });
      if (this.stopped) {
        socket.close();
        return;
      }
      this.socket = socket;
      this.upstreamUrl = url;
      const subscribed = await socket.call("eth_subscribe", ["newHeads"]);
      if (typeof subscribed.result !== "string") throw new Error("newHeads subscription refused");
      this.subscription = subscribed.result;
      const generation = this.generation;
      const current = await socket.call("eth_blockNumber", []);
      if (typeof current.result !== "string") throw new Error("eth_blockNumber refused");
      if (generation === this.generation) this.newHead({ number: current.result });
      this.retryMs = RETRY_FIRST_MS;
      this.log.debug({ upstream: url }, "head subscription live");
    } catch (error) {
      this.log.debug({ err: error }, "head subscription not established");
      this.reset();
      this.retryLater();
    } finally {
      this.connecting = false;
    }
  }

  private newHead(header: HeadNotification): void {
    if (typeof header.number !== "string") return;
    const head = Number.parseInt(header.number, 16);
    if (!Number.isSafeInteger(head)) return;
    this.generation++;
    this.head = head;
    this.results.clear();
    this.fetching.clear();
    this.results.set("eth_blockNumber", JSON.stringify(header.number));
  }

  /** Forgets the subscription and every cached answer. */
  private reset(): void {
    this.generation++;
    const socket = this.socket;
    this.socket = undefined;
    this.subscription = undefined;
    this.upstreamUrl = undefined;
    this.head = undefined;
    this.results.clear();
    this.fetching.clear();
    socket?.close();
  }

  private retryLater(): void {
    if (this.stopped) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.connect(), this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
  }
}
