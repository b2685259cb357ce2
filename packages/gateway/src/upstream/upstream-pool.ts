import type { Logger } from "pino";
import { UpstreamUnavailableError } from "../errors.js";
import type { GatewayMetrics } from "../metrics.js";
import { UpstreamHttpClient, type UpstreamResponse, UpstreamResponseTooLargeError } from "./http-client.js";
import { UpstreamHealth } from "./upstream-health.js";

/** What the last health check learnt about one upstream. */
export interface UpstreamStatus {
  readonly url: string;
  readonly healthy: boolean;
  /** Head block number, or undefined before the first successful check. */
  readonly head: number | undefined;
  /** Head block timestamp (seconds). */
  readonly headTimestamp: number | undefined;
}

/** Options of {@link UpstreamPool}. */
export interface UpstreamPoolOptions {
  readonly intervalMs: number;
  readonly maxLagBlocks: number;
  readonly timeoutMs: number;
  /** Longest answer read from a node (default 25 MiB plus 1 MiB); a longer one fails the request. */
  readonly maxResponseBytes?: number;
  readonly log: Logger;
  readonly metrics: GatewayMetrics;
}

class Upstream {
  readonly client: UpstreamHttpClient;
  readonly health = new UpstreamHealth();
  head: number | undefined;
  headTimestamp: number | undefined;

  constructor(
    readonly url: string,
    timeoutMs: number,
    maxResponseBytes: number,
  ) {
    this.client = new UpstreamHttpClient(url, timeoutMs, maxResponseBytes);
  }

  get healthy(): boolean {
    return this.health.healthy;
  }
}

/** Health checks are short: a node that takes longer than this is not fit to serve. */
const CHECK_TIMEOUT_MS = 2_000;
const HEALTH_BODY = '{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["latest",false]}';

/**
 * The nodes behind the gateway: each is health-checked on an interval (head number and timestamp,
 * lag behind the best head); requests go round-robin to healthy upstreams at the head, and move to
 * the next one when a node fails mid-request (transport failures only: a JSON-RPC error is an answer).
 */
export class UpstreamPool {
  private readonly upstreams: Upstream[];
  private timer: NodeJS.Timeout | undefined;
  private next = 0;
  private readonly checkListeners: (() => unknown)[] = [];

  constructor(
    urls: readonly string[],
    private readonly options: UpstreamPoolOptions,
  ) {
    // Room above the client-facing cap for the envelope of an answer that is then refused whole.
    const maxBody = (options.maxResponseBytes ?? 25 * 1024 * 1024) + 1024 * 1024;
    this.upstreams = urls.map((url) => new Upstream(url, options.timeoutMs, maxBody));
  }

  /** Runs a first health check, then keeps checking on the interval. */
  async start(): Promise<void> {
    await this.checkAll();
    this.timer = setInterval(() => void this.checkAll(), this.options.intervalMs);
    this.timer.unref();
  }

  /** Calls `listener` after every round of health checks. */
  onCheck(listener: () => unknown): void {
    this.checkListeners.push(listener);
  }

  /** Stops health checks and closes pooled connections. */
  stop(): void {
    clearInterval(this.timer);
    for (const upstream of this.upstreams) upstream.client.close();
  }

  /** Each upstream's latest health. */
  status(): UpstreamStatus[] {
    return this.upstreams.map((u) => ({
      url: u.url,
      healthy: u.healthy,
      head: u.head,
      headTimestamp: u.headTimestamp,
    }));
  }

  /**
   * Sends `body` to the best upstream; on a transport failure the upstream is marked down and the next
   * one is tried. Rejects with -32002 once every candidate failed (without the nodes' addresses). Only for calls that are safe to
   * repeat: transaction sends go through {@link sendTo}, one node at a time.
   */
  async send(body: string): Promise<UpstreamResponse> {
    const candidates = this.candidates();
    let lastError: unknown;
    for (const [attempt, upstream] of candidates.entries()) {
      if (attempt > 0) this.options.metrics.failovers.inc();
      try {
        return await upstream.client.post(body);
      } catch (error) {
        // An answer too large is an answer: another node would give the same.
        if (error instanceof UpstreamResponseTooLargeError) throw error;
        lastError = error;
        this.markDown(upstream, error);
      }
    }
    // The cause names the node (its URL and address): logged, never told to the client.
    this.options.log.warn({ err: lastError }, "no upstream node answered");
    throw new UpstreamUnavailableError();
  }

  /** The distinct upstream URLs in the order {@link send} would try them. */
  candidateUrls(): string[] {
    return [...new Set(this.candidates().map((u) => u.url))];
  }

  /** Sends `body` to one specific upstream, without failover; a transport failure marks it down. */
  async sendTo(url: string, body: string): Promise<UpstreamResponse> {
    const upstream = this.upstreams.find((u) => u.url === url);
    if (upstream === undefined) throw new UpstreamUnavailableError();
    try {
      return await upstream.client.post(body);
    } catch (error) {
      if (!(error instanceof UpstreamResponseTooLargeError)) this.markDown(upstream, error);
      throw error;
    }
  }

  /**
   * Upstreams in the order to try them: healthy ones at the head (rotating), then healthy ones that
   * lag, then the rest (a node marked down may have recovered since its last check). A lone
   * upstream is listed twice, so a request that met a closing keep-alive connection is tried again.
   */
  private candidates(): Upstream[] {
    const best = this.bestHead();
    const atHead = this.upstreams.filter(
      (u) => u.healthy && (best === undefined || (u.head ?? 0) >= best - this.options.maxLagBlocks),
    );
    const start = this.next++ % Math.max(1, atHead.length);
    const ordered = [...atHead.slice(start), ...atHead.slice(0, start)];
    for (const u of this.upstreams) if (u.healthy && !ordered.includes(u)) ordered.push(u);
    for (const u of this.upstreams) if (!ordered.includes(u)) ordered.push(u);
    return ordered.length === 1 ? [ordered[0]!, ordered[0]!] : ordered;
  }

  /** True when at least one upstream passed its last check. */
  get anyHealthy(): boolean {
    return this.upstreams.some((u) => u.healthy);
  }

  /** True when the upstream at `url` passed its last check. */
  isHealthy(url: string): boolean {
    for (const u of this.upstreams) if (u.url === url) return u.healthy;
    return false;
  }

  /** The highest head among the healthy upstreams, as of the last checks. */
  bestHead(): number | undefined {
    let best: number | undefined;
    for (const u of this.upstreams) {
      if (u.healthy && u.head !== undefined && (best === undefined || u.head > best)) best = u.head;
    }
    return best;
  }

  private async checkAll(): Promise<void> {
    await Promise.all(this.upstreams.map((u) => this.check(u)));
    const best = this.bestHead();
    for (const u of this.upstreams) {
      this.options.metrics.upstreamUp.set({ upstream: u.url }, u.healthy ? 1 : 0);
      if (u.head !== undefined) this.options.metrics.upstreamHead.set({ upstream: u.url }, u.head);
      if (u.head !== undefined && best !== undefined)
        this.options.metrics.upstreamLag.set({ upstream: u.url }, Math.max(0, best - u.head));
    }
    for (const listener of this.checkListeners) listener();
  }

  private async check(upstream: Upstream): Promise<void> {
    const sent = upstream.health.checkSent();
    try {
      const { status, body } = await upstream.client.post(HEALTH_BODY, CHECK_TIMEOUT_MS);
      const block = (JSON.parse(body) as { result?: { number?: string; timestamp?: string } }).result;
      if (status !== 200 || typeof block?.number !== "string" || typeof block.timestamp !== "string")
        throw new Error(`unexpected health answer (HTTP ${status})`);
      const wasHealthy = upstream.healthy;
      // An answer to a check sent before a request to the node failed is older news than the failure.
      if (!upstream.health.passed(sent)) return;
      upstream.head = Number.parseInt(block.number, 16);
      upstream.headTimestamp = Number.parseInt(block.timestamp, 16);
      if (!wasHealthy) this.options.log.info({ upstream: upstream.url }, "upstream healthy");
    } catch (error) {
      this.markDown(upstream, error);
    }
  }

  private markDown(upstream: Upstream, error: unknown): void {
    if (upstream.healthy) this.options.log.warn({ upstream: upstream.url, err: error }, "upstream down");
    upstream.health.failed();
  }
}

/** `http://host:port/path` -> `ws://host:port/path` (https -> wss). */
export function toWsUrl(httpUrl: string): string {
  return httpUrl.replace(/^http/, "ws");
}
