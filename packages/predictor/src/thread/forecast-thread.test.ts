import { afterEach, describe, expect, it } from "vitest";
import { backtest } from "../backtest.js";
import { InsufficientHistoryError } from "../errors.js";
import { predict } from "../predict.js";
import { randomWalk } from "../testing/synthetic.js";
import type { PricePoint } from "../types.js";
import { ForecastBusyError, ForecastThread } from "./forecast-thread.js";

const DAY = 86_400;
const START = 1_700_000_000 - (1_700_000_000 % DAY);
const asPoints = (prices: readonly number[]): PricePoint[] =>
  prices.map((price, i) => ({ time: START + i * DAY, price }));
const history = asPoints(randomWalk(5, 1_200, 0.03));

let thread: ForecastThread | undefined;
afterEach(async () => {
  await thread?.close();
  thread = undefined;
});

/** The longest pause of this thread's event loop while `work` runs, in ms. */
async function longestPause<T>(work: Promise<T>): Promise<number> {
  let longest = 0;
  let last = performance.now();
  const tick = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  await work;
  clearInterval(tick);
  return longest;
}

describe("ForecastThread", () => {
  it("answers exactly what the model answers on the caller's thread", async () => {
    thread = new ForecastThread();
    expect(await thread.predict(history, 7)).toEqual(predict(history, 7));
    expect(await thread.backtest(history, 7, { step: 20 })).toEqual(backtest(history, 7, { step: 20 }));
  });

  it("keeps the caller's event loop free while a backtest runs", async () => {
    thread = new ForecastThread();
    const started = performance.now();
    const inline = backtest(history, 7, { step: 5 });
    const inlineMs = performance.now() - started;
    const pause = await longestPause(
      thread.backtest(history, 7, { step: 5 }).then((r) => expect(r).toEqual(inline)),
    );
    // The same backtest run on this thread blocks it for its whole length; on the forecast thread
    // the timer keeps firing (the bound is loose: the machine may be busy).
    expect(pause).toBeLessThan(Math.max(250, inlineMs / 2));
  });

  it("rebuilds the model's errors on the caller's side", async () => {
    thread = new ForecastThread();
    await expect(thread.predict(history.slice(0, 10), 7)).rejects.toBeInstanceOf(InsufficientHistoryError);
    await expect(thread.predict(history, 0)).rejects.toBeInstanceOf(RangeError);
  });

  it("refuses tasks beyond its queue", async () => {
    thread = new ForecastThread({ maxQueued: 2 });
    const first = thread.backtest(history, 7, { step: 5 });
    const second = thread.predict(history, 7);
    await expect(thread.predict(history, 1)).rejects.toBeInstanceOf(ForecastBusyError);
    expect(thread.queued).toBe(2);
    await Promise.all([first, second]);
    expect(thread.queued).toBe(0);
  });

  it("stops a task that runs past its time and starts afresh for the next", async () => {
    thread = new ForecastThread({ taskTimeoutMs: 1 });
    await expect(thread.backtest(history, 7, { step: 1 })).rejects.toThrow(/longer than 1 ms/);
    expect(thread.queued).toBe(0);
    thread = new ForecastThread();
    await expect(thread.predict(history, 7)).resolves.toEqual(predict(history, 7));
  });
});
