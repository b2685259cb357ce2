/** One observed price: `time` in unix seconds, `price` a positive number (any currency unit). */
export interface PricePoint {
  time: number;
  price: number;
}

/** The last observed price of one UTC calendar day; `day` counts whole days since 1970-01-01 UTC. */
export interface DailyClose {
  day: number;
  price: number;
}

/** Prices at the quantiles of a predictive distribution, keyed by percent. */
export interface PriceQuantiles {
  "5": number;
  "10": number;
  "25": number;
  "50": number;
  "75": number;
  "90": number;
  "95": number;
}

/** A price forecast for one horizon. */
export interface Prediction {
  /** The latest price used (the last point of the history). */
  currentPrice: number;
  /** Unix seconds of the latest price used. */
  time: number;
  /** Forecast horizon in days. */
  horizonDays: number;
  /** Point forecast of the price `horizonDays` after the latest price (median of the predictive distribution). */
  predictedPrice: number;
  /** Lower end of the 80 % prediction interval. */
  lower: number;
  /** Upper end of the 80 % prediction interval. */
  upper: number;
  /** Prices at the 5, 10, 25, 50, 75, 90 and 95 % quantiles of the predictive distribution. */
  quantiles: PriceQuantiles;
  /** Calibrated probability, in 0..1, that the realised price lands within ±5 % of `predictedPrice`. */
  confidence: number;
  /** Probability, in 0..1, that the price `horizonDays` ahead is above `currentPrice` (0.5 without a drift). */
  probabilityUp: number;
  /** Name and revision of the model that produced the forecast. */
  modelVersion: string;
}
