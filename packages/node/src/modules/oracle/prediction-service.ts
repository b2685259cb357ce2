import type { Block } from "@ethereumjs/block";
import { PRICE_DECIMALS, PRICE_ORACLE_ADDRESS } from "@strata/contracts";
import { InsufficientHistoryError, type Prediction, predict } from "@strata/predictor";
import { formatUnits } from "viem";
import { UnavailableResourceError, UnknownResourceError } from "../../errors/domain-errors.js";
import type { CallExecutor } from "../../execution/call-executor.js";
import { OracleHistoryReader } from "./price-history.js";

/** `svc_getAIPrediction`'s result (DECISIONS.md "Chain-specific methods"). */
export interface PredictionView {
  readonly asset: string;
  /** Latest on-chain price, decimal string. */
  readonly currentPrice: string;
  readonly predictedPrice: string;
  /** Calibrated probability that the realised price lands within ±5 % of predictedPrice, decimal fraction. */
  readonly confidence: string;
  /** Days ahead. */
  readonly horizon: number;
  /** Observation time of the latest price used, ISO 8601 UTC. */
  readonly timestamp: string;
  /** 80 % prediction interval. */
  readonly lower: string;
  readonly upper: string;
  readonly modelVersion: string;
  /** Where the history came from: the oracle contract and the rounds used. */
  readonly source: string;
}

/** Predictions kept at most; one entry per (asset, latest round and its time, horizon). */
const CACHE_SIZE = 512;

/**
 * Price predictions from the PriceOracle's on-chain history, computed off-consensus with the
 * predictor model. Predictions are cached per (asset, latest round, horizon): a repeated call in
 * the same round costs two contract reads.
 */
export class PredictionService {
  private readonly reader: OracleHistoryReader;
  private readonly cache = new Map<string, PredictionView>();

  constructor(calls: CallExecutor) {
    this.reader = new OracleHistoryReader(calls);
  }

  /**
   * Predicts `asset` `horizon` days ahead from the history at `block`. Unknown asset:
   * {@link UnknownResourceError}; too little history: {@link UnavailableResourceError}.
   */
  async predict(block: Block, asset: string, horizon: number): Promise<PredictionView> {
    if (!(await this.reader.hasAsset(block, asset))) {
      throw new UnknownResourceError(`unknown asset ${asset}: no price feed on this network`);
    }
    const latest = await this.reader.latestRoundId(block, asset);
    const rounds = await this.reader.history(block, asset, latest);
    const last = rounds.at(-1);
    if (!last) throw new UnavailableResourceError(`insufficient price history for ${asset}: no price yet`);
    const key = `${asset}\u0000${latest}\u0000${last.observedAt}\u0000${last.answer}\u0000${horizon}`;
    const cached = this.cache.get(key);
    if (cached) return cached;

    let prediction: Prediction;
    try {
      const scale = 10 ** PRICE_DECIMALS;
      const points = rounds.map((r) => ({ time: r.observedAt, price: Number(r.answer) / scale }));
      prediction = predict(points, horizon);
    } catch (error) {
      if (error instanceof InsufficientHistoryError) {
        throw new UnavailableResourceError(
          `insufficient price history for ${asset}: ${error.available} daily closes, at least ${error.required} required`,
        );
      }
      throw error;
    }
    const view: PredictionView = {
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
    };
    if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, view);
    return view;
  }
}

/** A price with the oracle's 8 decimals, without trailing zeros. */
function formatPrice(price: number): string {
  return formatUnits(BigInt(Math.round(price * 10 ** PRICE_DECIMALS)), PRICE_DECIMALS);
}
