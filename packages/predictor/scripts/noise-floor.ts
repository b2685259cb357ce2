/**
 * How far from the targets a perfectly calibrated forecaster lands by chance alone on the same
 * origins (table "Sampling noise" of docs/oracle.md): for each crypto series, horizon and part,
 * the model's calibration error and largest |coverage − 80 %| over the volatility terciles and over
 * the calendar years with at least 150 origins, beside the median and 90th percentile of the same
 * statistics for forecasts that are right by construction (see perfectForecastNoise).
 *   npx tsx packages/predictor/scripts/noise-floor.ts > noise.md
 */
import { readFileSync } from "node:fs";
import { backtest, trailingVolatility } from "../src/backtest.js";
import { parsePriceCsv, rowsToPricePoints } from "../src/csv.js";
import { toDailyCloses } from "../src/daily.js";
import { INTERVAL_COVERAGE } from "../src/parameters.js";
import { type NoiseQuantiles, perfectForecastNoise } from "../src/sampling-noise.js";

const CUTOFF = Date.parse("2023-01-01T00:00:00Z") / 86_400_000;
const MIN_YEAR_ORIGINS = 150;
const f = (x: number) => x.toFixed(3);
const q = (n: NoiseQuantiles) => `${f(n.median)} / ${f(n.p90)}`;
const out = (line: string) => process.stdout.write(`${line}\n`);
out(
  "| series | part | h | n | ECE model | ECE perfect (median / p90) | tercile max dev. model | perfect (median / p90) | yearly max dev. model | perfect (median / p90) |",
);
out("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
for (const name of ["BTC", "ETH", "SOL", "BNB"]) {
  const file = new URL(`../data/${name}-USD.csv`, import.meta.url);
  const points = rowsToPricePoints(parsePriceCsv(readFileSync(file, "utf8")));
  const closes = toDailyCloses(points);
  const indexOfDay = new Map(closes.map((c, i) => [c.day, i]));
  for (const horizon of [1, 7, 30]) {
    for (const [part, range] of [
      ["tuning", { beforeDay: CUTOFF }],
      ["hold-out", { fromDay: CUTOFF }],
    ] as const) {
      const r = backtest(points, horizon, range);
      const volatility = r.forecasts.map((x) => trailingVolatility(closes, indexOfDay.get(x.originDay)!));
      const bounds = r.coverageByVolatility.map((t) => t.volatilityBelow);
      const terciles = [0, 1, 2].map((t) =>
        volatility.flatMap((v, i) => ((t === 0 || v >= bounds[t - 1]!) && v < bounds[t]! ? [i] : [])),
      );
      const yearOf = (day: number) => new Date(day * 86_400_000).getUTCFullYear();
      const years = [...new Set(r.forecasts.map((x) => yearOf(x.originDay)))]
        .map((year) => r.forecasts.flatMap((x, i) => (yearOf(x.originDay) === year ? [i] : [])))
        .filter((group) => group.length >= MIN_YEAR_ORIGINS);
      const confidences = r.forecasts.map((x) => x.confidence);
      const tercileNoise = perfectForecastNoise(confidences, terciles, horizon);
      const yearNoise = perfectForecastNoise(confidences, years, horizon);
      const deviation = (coverages: number[]) =>
        coverages.length ? f(Math.max(...coverages.map((c) => Math.abs(c - INTERVAL_COVERAGE)))) : "-";
      const yearCoverage = r.coverageByYear
        .filter((y) => y.predictions >= MIN_YEAR_ORIGINS)
        .map((y) => y.model);
      out(
        `| ${name} | ${part} | ${horizon} | ${r.model.predictions} | ${f(r.model.calibrationError)} | ${q(tercileNoise.calibrationError)} | ${deviation(r.coverageByVolatility.map((t) => t.model))} | ${q(tercileNoise.coverageDeviation)} | ${deviation(yearCoverage)} | ${years.length ? q(yearNoise.coverageDeviation) : "-"} |`,
      );
    }
  }
}
