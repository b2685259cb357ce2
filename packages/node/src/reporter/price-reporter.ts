import { PRICE_ORACLE_ADDRESS, PriceOracle } from "@strata/contracts";
import type { Logger } from "pino";
import { type Address, encodeFunctionData, type Hex, type PublicClient } from "viem";
import type { FeedSeries } from "../config/reporter-settings.js";
import { type SignedCall, SignedSender } from "../transactions/signed-sender.js";
import { Continuation, dailyVolatility, type Observation, redate } from "./feed.js";
import { seedOf } from "./random.js";

/** How a {@link PriceReporter} runs. */
export interface ReporterOptions {
  /** JSON-RPC URL of the node to send transactions to. */
  readonly rpcUrl: string;
  /** Key of an authorised reporter (an active validator or on the oracle's allow-list). */
  readonly privateKey: Hex;
  readonly feed: readonly FeedSeries[];
  /** Report the current prices once this many blocks have passed since the last report. */
  readonly everyBlocks: number;
  /** ... or once this many seconds have passed, whichever comes first (keeps idle chains fresh). */
  readonly maxIntervalSeconds: number;
  /** Rounds per seeding transaction. */
  readonly batchSize?: number;
  /** Seed only the last N closes of each series (all by default). */
  readonly historyDays?: number;
  /** How often the head is checked, in milliseconds. */
  readonly pollMs?: number;
  readonly oracle?: Address;
  readonly logger: Logger;
  /** Unix seconds; the wall clock by default. */
  readonly now?: () => number;
}

const DEFAULT_BATCH = 400;
const BATCH_BASE_GAS = 100_000n;
/** Gas per seeded round, with a margin over the ~23,300 the contract uses. */
const BATCH_ROUND_GAS = 30_000n;
const SUBMIT_GAS = 300_000n;

/**
 * Writes prices to the PriceOracle with ordinary signed transactions. First it seeds each asset the
 * oracle lists with the feed's daily closes re-dated to end yesterday (batched `submitBatch`
 * transactions; a partly seeded asset continues where it stopped, a seeded one is left alone), then
 * it reports a simulated continuation with observation time = now every `everyBlocks` blocks or
 * `maxIntervalSeconds` seconds.
 */
export class PriceReporter {
  /** Settles once seeding has finished (or failed: the error is logged and reporting goes on). */
  readonly seeded: Promise<void>;
  private resolveSeeded!: () => void;
  private readonly sender: SignedSender;
  private readonly publicClient: PublicClient;
  private readonly oracle: Address;
  private readonly now: () => number;
  private readonly live = new Map<string, { price: bigint; at: number; continuation: Continuation }>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private lastReport = { block: -1n, at: 0 };

  constructor(private readonly options: ReporterOptions) {
    this.sender = new SignedSender(options.rpcUrl, options.privateKey, () => this.stopped);
    this.publicClient = this.sender.publicClient;
    this.oracle = options.oracle ?? PRICE_ORACLE_ADDRESS;
    this.now = options.now ?? (() => Math.floor(Date.now() / 1000));
    this.seeded = new Promise((resolve) => {
      this.resolveSeeded = resolve;
    });
  }

  /**
   * Checks that the node answers and has the oracle; resolves with the symbols that will be
   * reported (the feed's assets the oracle lists). Throws when the node or the oracle is missing.
   */
  async preflight(): Promise<string[]> {
    return (await this.reportedSeries()).map((s) => s.symbol);
  }

  /** The reporter's address. */
  get address(): Address {
    return this.sender.address;
  }

  /** Starts seeding and then the reporting loop in the background. */
  start(): void {
    this.running = this.run();
  }

  /** Stops reporting: cuts the requests in flight and waits for the loop to end. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.sender.abort();
    await this.running;
  }

  private async run(): Promise<void> {
    try {
      await this.seed();
    } catch (error) {
      if (!this.stopped) this.options.logger.error({ err: error }, "price history seeding failed");
    } finally {
      this.resolveSeeded();
    }
    await this.tick();
  }

  /** One look at the head (reporting when due), then the next one after `pollMs`. */
  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.reportIfDue();
    } catch (error) {
      if (!this.stopped) this.options.logger.warn({ err: (error as Error).message }, "price report failed");
    }
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick();
    }, this.options.pollMs ?? 1000);
  }

  /** The feed series the oracle has a feed for. */
  private async reportedSeries(): Promise<FeedSeries[]> {
    const assets = await this.publicClient.readContract({
      address: this.oracle,
      abi: PriceOracle.abi,
      functionName: "assets",
    });
    const known = new Set(assets);
    const skipped = this.options.feed.filter((s) => !known.has(s.symbol)).map((s) => s.symbol);
    if (skipped.length > 0) this.options.logger.debug({ skipped }, "assets without an oracle feed");
    return this.options.feed.filter((s) => known.has(s.symbol));
  }

  private async seed(): Promise<void> {
    const nowSeconds = this.now();
    const batches: SignedCall[] = [];
    const series = await this.reportedSeries();
    for (const s of series) {
      const closes = this.options.historyDays ? s.closes.slice(-this.options.historyDays) : s.closes;
      if (closes.length === 0) continue;
      const observations = redate(closes, nowSeconds);
      const pending = await this.unseeded(s.symbol, observations);
      const batch = this.options.batchSize ?? DEFAULT_BATCH;
      for (let i = 0; i < pending.length; i += batch) {
        const chunk = pending.slice(i, i + batch);
        batches.push(this.batchCall(s.symbol, chunk));
      }
      const last = observations.at(-1)!;
      this.live.set(s.symbol, {
        price: last.price,
        at: Number(last.observedAt),
        continuation: new Continuation(dailyVolatility(closes), seedOf(s.symbol) ^ nowSeconds),
      });
    }
    // One batch at a time: each fills much of a block, and other transactions get in between.
    for (const batch of batches) await this.sendAll([batch]);
    await this.syncLive(series);
    this.options.logger.info(
      { assets: series.map((s) => s.symbol), txs: batches.length },
      "price history seeded",
    );
  }

  /**
   * The observations still to seed: all of them for an asset without rounds, those after the
   * latest on-chain one when that one is part of this history (an interrupted seeding), none otherwise.
   */
  private async unseeded(symbol: string, observations: readonly Observation[]): Promise<Observation[]> {
    const latest = await this.latestRound(symbol);
    if (!latest) return [...observations];
    const at = observations.findIndex((o) => o.observedAt === latest.updatedAt && o.price === latest.answer);
    return at < 0 ? [] : observations.slice(at + 1);
  }

  private async latestRound(symbol: string): Promise<{ answer: bigint; updatedAt: bigint } | undefined> {
    const id = await this.publicClient.readContract({
      address: this.oracle,
      abi: PriceOracle.abi,
      functionName: "latestRoundId",
      args: [symbol],
    });
    if (id === 0n) return undefined;
    const [, answer, , updatedAt] = await this.publicClient.readContract({
      address: this.oracle,
      abi: PriceOracle.abi,
      functionName: "latestRoundData",
      args: [symbol],
    });
    return { answer, updatedAt };
  }

  /** Continues from the on-chain prices (which may come from an earlier run). */
  private async syncLive(series: readonly FeedSeries[]): Promise<void> {
    for (const s of series) {
      const latest = await this.latestRound(s.symbol);
      const entry = this.live.get(s.symbol);
      if (latest && entry) {
        entry.price = latest.answer;
        entry.at = Number(latest.updatedAt);
      }
    }
  }

  private async reportIfDue(): Promise<void> {
    const head = await this.publicClient.getBlockNumber({ cacheTime: 0 });
    const nowSeconds = this.now();
    const byBlocks =
      this.lastReport.block >= 0n && head >= this.lastReport.block + BigInt(this.options.everyBlocks);
    const byTime = nowSeconds - this.lastReport.at >= this.options.maxIntervalSeconds;
    if (!byBlocks && !byTime) return;
    const reports: SignedCall[] = [];
    for (const [symbol, entry] of this.live) {
      const price = entry.continuation.next(entry.price, nowSeconds - entry.at);
      entry.price = price;
      entry.at = nowSeconds;
      reports.push(this.reportCall(symbol, price, BigInt(nowSeconds)));
    }
    await this.sendAll(reports);
    this.lastReport = { block: await this.publicClient.getBlockNumber({ cacheTime: 0 }), at: nowSeconds };
  }

  /** Sends the calls in one round and logs those that reverted. */
  private async sendAll(calls: readonly SignedCall[]): Promise<void> {
    for (const hash of await this.sender.sendAll(calls))
      this.options.logger.warn({ hash }, "price transaction reverted");
  }

  private batchCall(symbol: string, observations: readonly Observation[]): SignedCall {
    const data = encodeFunctionData({
      abi: PriceOracle.abi,
      functionName: "submitBatch",
      args: [symbol, observations.map((o) => o.price), observations.map((o) => o.observedAt)],
    });
    return { to: this.oracle, data, gas: BATCH_BASE_GAS + BATCH_ROUND_GAS * BigInt(observations.length) };
  }

  private reportCall(symbol: string, price: bigint, observedAt: bigint): SignedCall {
    const data = encodeFunctionData({
      abi: PriceOracle.abi,
      functionName: "submit",
      args: [symbol, price, observedAt],
    });
    return { to: this.oracle, data, gas: SUBMIT_GAS };
  }
}
