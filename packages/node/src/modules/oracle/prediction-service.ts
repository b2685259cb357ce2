import type { Block } from "@ethereumjs/block";
import { PRICE_DECIMALS, PRICE_ORACLE_ADDRESS, PriceOracle } from "@strata/contracts";
import {
  ForecastBusyError,
  type ForecastThread,
  InsufficientHistoryError,
  type Prediction,
} from "@strata/predictor";
import type { Prediction as PredictionView } from "@strata/protocol";
import { formatUnits } from "viem";
import { BusyError, UnavailableResourceError, UnknownResourceError } from "../../errors/domain-errors.js";
import type { CallExecutor } from "../../execution/call/call-executor.js";
import { readContract } from "../read-contract.js";
import { OracleHistoryReader, type OracleRound } from "./price-history.js";

type RoundView = Omit<PredictionView, "stale">;

/** Predictions kept at most; one entry per (asset, latest round and its time, horizon). */
const CACHE_SIZE = 512;

/**
 * Price predictions from the PriceOracle's on-chain history, computed off-consensus with the
 * predictor model on its forecast thread (never on the thread that answers requests). Predictions
 * are cached per (asset, latest round, horizon): a repeated call in the same round costs two
 * contract reads, and concurrent calls for one key share one forecast.
 */
export class PredictionService {
  private readonly reader: OracleHistoryReader;
  private readonly cache = new Map<string, RoundView>();
  private readonly inflight = new Map<string, Promise<Prediction>>();
  private stalenessThreshold: number | undefined;

  /**
   * @param calls read-only contract calls.
   * @param forecasts the thread the model runs on.
   * @param now the wall clock in unix seconds (staleness is measured against it, not the block time,
   *   so a chain that stopped producing blocks does not make old prices look fresh).
   */
  constructor(
    private readonly calls: CallExecutor,
    private readonly forecasts: ForecastThread,
    private readonly now: () => number = () => Date.now() / 1000,
  ) {
    this.reader = new OracleHistoryReader(calls);
  }

  /**
   * Predicts `asset` `horizon` days ahead from the history at `block`. Unknown asset:
   * {@link UnknownResourceError}; too little history, or a latest observation at least `horizon`
   * days old (the forecast's target time has passed: too little fresh data),
   * {@link UnavailableResourceError}. A latest observation older than the oracle's staleness
   * threshold but younger than the horizon gives an answer with `stale: true`.
   */
  async predict(block: Block, asset: string, horizon: number): Promise<PredictionView> {
    if (!(await this.reader.hasAsset(block, asset))) {
      throw new UnknownResourceError(`unknown asset ${asset}: no price feed on this network`);
    }
    const latest = await this.reader.latestRoundId(block, asset);
    const rounds = await this.reader.history(block, asset, latest);
    const last = rounds.at(-1);
    if (!last) throw new UnavailableResourceError(`insufficient price history for ${asset}: no price yet`);
    const age = this.now() - last.observedAt;
    if (age >= horizon * 86_400) {
      throw new UnavailableResourceError(
        `stale price history for ${asset}: last observation ${new Date(last.observedAt * 1000).toISOString()} (round ${latest}) is older than the ${horizon}-day horizon`,
      );
    }
    const stale = age > (await this.threshold(block));
    const key = `${asset}\u0000${latest}\u0000${last.observedAt}\u0000${last.answer}\u0000${horizon}`;
    const cached = this.cache.get(key);
    if (cached) return { ...cached, stale };

    const prediction = await this.forecast(key, asset, rounds, horizon);
    const view: RoundView = {
      asset,
      currentPrice: formatUnits(last.answer, PRICE_DECIMALS),
      predictedPrice: formatPrice(prediction.predictedPrice),
      confidence: prediction.confidence.toFixed(4),
      horizon,
      timestamp: new Date(last.observedAt * 1000).toISOString(),
      lower: formatPrice(prediction.lower),
      upper: formatPrice(prediction.upper),
      modelVersion: prediction.modelVersion,
      source: `PriceOracle ${PRICE_ORACLE_ADDRESS} rounds 1..${latest}`,
      quantiles: {
        "5": formatPrice(prediction.quantiles["5"]),
        "10": formatPrice(prediction.quantiles["10"]),
        "25": formatPrice(prediction.quantiles["25"]),
        "50": formatPrice(prediction.quantiles["50"]),
        "75": formatPrice(prediction.quantiles["75"]),
        "90": formatPrice(prediction.quantiles["90"]),
        "95": formatPrice(prediction.quantiles["95"]),
      },
      probabilityUp: prediction.probabilityUp.toFixed(4),
    };
    if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, view);
    return { ...view, stale };
  }

  /** The model's forecast for `rounds`, shared by concurrent calls for one key; domain errors for what can be refused. */
  private async forecast(
    key: string,
    asset: string,
    rounds: readonly OracleRound[],
    horizon: number,
  ): Promise<Prediction> {
    let running = this.inflight.get(key);
    if (!running) {
      const scale = 10 ** PRICE_DECIMALS;
      const points = rounds.map((r) => ({ time: r.observedAt, price: Number(r.answer) / scale }));
      running = this.forecasts.predict(points, horizon).finally(() => this.inflight.delete(key));
      this.inflight.set(key, running);
    }
    try {
      return await running;
    } catch (error) {
      if (error instanceof InsufficientHistoryError) {
        throw new UnavailableResourceError(
          `insufficient price history for ${asset}: ${error.available} daily closes, at least ${error.required} required`,
        );
      }
      if (error instanceof ForecastBusyError) {
        throw new BusyError(
          `prediction queue full (${error.queued} forecasts running): retry shortly`,
          1_000,
        );
      }
      throw error;
    }
  }

  /** The oracle's staleness threshold in seconds (immutable, read once). */
  private async threshold(block: Block): Promise<number> {
    this.stalenessThreshold ??= Number(
      await readContract(this.calls, block, {
        address: PRICE_ORACLE_ADDRESS,
        abi: PriceOracle.abi,
        functionName: "stalenessThreshold",
      }),
    );
    return this.stalenessThreshold;
  }
}

/** A price with the oracle's 8 decimals, without trailing zeros. */
function formatPrice(price: number): string {
  return formatUnits(BigInt(Math.round(price * 10 ** PRICE_DECIMALS)), PRICE_DECIMALS);
}
