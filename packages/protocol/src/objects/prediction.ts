import { z } from "zod";
import { DecimalText, IsoTime } from "./hex-text.js";

/** Longest forecast horizon of `svc_getAIPrediction`, in days. */
export const MAX_PREDICTION_HORIZON = 365;

/** The quantile levels (percent) a prediction carries. */
export const PREDICTION_QUANTILES = ["5", "10", "25", "50", "75", "90", "95"] as const;

/** `svc_getAIPrediction`'s result (DECISIONS.md "Chain-specific methods"). */
export const Prediction = z.object({
  asset: z.string(),
  /** Latest on-chain price, decimal string. */
  currentPrice: DecimalText,
  predictedPrice: DecimalText,
  /** Calibrated probability that the realised price lands within ±5 % of predictedPrice, decimal fraction. */
  confidence: DecimalText,
  /** Days ahead. */
  horizon: z.number(),
  /** Observation time of the latest price used. */
  timestamp: IsoTime,
  /** 80 % prediction interval (the 10 % and 90 % quantiles). */
  lower: DecimalText,
  upper: DecimalText,
  modelVersion: z.string(),
  /** Where the history came from: the oracle contract and the rounds used. */
  source: z.string(),
  /** Prices at the 5, 10, 25, 50, 75, 90 and 95 % quantiles; "50" is `predictedPrice`. */
  quantiles: z.record(z.enum(PREDICTION_QUANTILES), DecimalText),
  /** Probability that the price at the horizon is above `currentPrice`, decimal fraction. */
  probabilityUp: DecimalText,
  /** True when the latest observation is older than the oracle's staleness threshold (seeding, or a silent feed). */
  stale: z.boolean(),
});
/** A prediction on the wire. */
export type Prediction = z.infer<typeof Prediction>;
