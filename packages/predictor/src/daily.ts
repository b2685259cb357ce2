import type { DailyClose, PricePoint } from "./types.js";

const SECONDS_PER_DAY = 86_400;

/**
 * Samples a price history at daily closes: the last observation of every UTC calendar day, so the
 * final close is the latest price itself. Points may come in any order; for equal times the later
 * one in the input wins. Throws a RangeError on a non-finite time or a price that is not a
 * positive finite number.
 */
export function toDailyCloses(history: readonly PricePoint[]): DailyClose[] {
  const ordered = history
    .map((point, index) => {
      if (!Number.isFinite(point.time))
        throw new RangeError(`price point ${index}: time is not a finite number`);
      if (!(Number.isFinite(point.price) && point.price > 0)) {
        throw new RangeError(
          `price point ${index}: price must be a positive finite number, got ${point.price}`,
        );
      }
      return { point, index };
    })
    .sort((a, b) => a.point.time - b.point.time || a.index - b.index);
  const closes: DailyClose[] = [];
  for (const { point } of ordered) {
    const day = Math.floor(point.time / SECONDS_PER_DAY);
    const last = closes.at(-1);
    if (last !== undefined && last.day === day) last.price = point.price;
    else closes.push({ day, price: point.price });
  }
  return closes;
}

/** Treats plain numbers as the closes of consecutive days (day 0, 1, 2, …); each must be positive. */
export function consecutiveCloses(prices: readonly number[]): DailyClose[] {
  return prices.map((price, day) => {
    if (!(Number.isFinite(price) && price > 0)) {
      throw new RangeError(`close ${day}: price must be a positive finite number, got ${price}`);
    }
    return { day, price };
  });
}
