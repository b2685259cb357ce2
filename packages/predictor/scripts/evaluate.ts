/**
 * Walk-forward evaluation table of docs/oracle.md: every series in data/ plus the synthetic FX-like
 * series, at 1, 7 and 30 days, before the tuning cut-off and on the hold-out after it.
 *   npx tsx packages/predictor/scripts/evaluate.ts > table.md
 */
import { readFileSync } from "node:fs";
import { backtest } from "../src/backtest.js";
import { parsePriceCsv, rowsToPricePoints } from "../src/csv.js";
import { fxLike } from "../src/testing/synthetic.js";
import type { PricePoint } from "../src/types.js";

const CUTOFF = Date.parse("2023-01-01T00:00:00Z") / 86_400_000;
const data = (file: string): PricePoint[] =>
  rowsToPricePoints(parsePriceCsv(readFileSync(new URL(`../data/${file}`, import.meta.url), "utf8")));
const synthetic = fxLike(7, 5000, 12).map((price, i) => ({ time: (CUTOFF - 4000 + i) * 86_400, price }));
const series: [string, PricePoint[]][] = [
  ["BTC", data("BTC-USD.csv")],
  ["ETH", data("ETH-USD.csv")],
  ["SOL", data("SOL-USD.csv")],
  ["BNB", data("BNB-USD.csv")],
  ["S&P 500", data("SP500.csv")],
  ["AAPL", data("AAPL.csv")],
  ["FX-like (synthetic)", synthetic],
];
const f = (x: number, d = 3) => (Number.isFinite(x) ? x.toFixed(d) : "-");
const out = (line: string) => process.stdout.write(`${line}\n`);
out(
  "| series | part | h | n | MAPE/RW | Winkler/EWMA-FHS | Winkler/best baseline | pinball/EWMA-FHS | coverage | coverage by vol tercile | min..max yearly coverage (n>=150) | ECE | Brier model / EWMA-FHS | DM t Winkler vs EWMA-FHS |",
);
out("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
const ratios = new Map<string, number[]>();
const realRatios = new Map<string, number[]>();
const geometricMean = (values: number[]) =>
  Math.exp(values.reduce((a, v) => a + Math.log(v), 0) / values.length);
for (const [name, points] of series) {
  const endsBeforeCutoff = points.at(-1)!.time / 86_400 < CUTOFF;
  const parts: [string, { beforeDay?: number; fromDay?: number }][] = endsBeforeCutoff
    ? [["all (not tuned on)", {}]]
    : [
        ["tuning", { beforeDay: CUTOFF }],
        ["hold-out", { fromDay: CUTOFF }],
      ];
  for (const horizon of [1, 7, 30]) {
    for (const [part, range] of parts) {
      let r: ReturnType<typeof backtest>;
      try {
        r = backtest(points, horizon, range);
      } catch {
        continue;
      }
      const m = r.model;
      const b = r.baselines;
      const best = Math.min(...Object.values(b).map((x) => x.winkler));
      const key = `${horizon} ${part === "hold-out" ? "hold-out" : "tuning"}`;
      ratios.set(key, [...(ratios.get(key) ?? []), m.winkler / b["ewma-fhs"].winkler]);
      if (points !== synthetic) {
        realRatios.set(key, [...(realRatios.get(key) ?? []), m.winkler / b["ewma-fhs"].winkler]);
      }
      const years = r.coverageByYear.filter((y) => y.predictions >= 150).map((y) => y.model);
      out(
        `| ${name} | ${part} | ${horizon} | ${m.predictions} | ${f(m.mape / b["rw-vol90"].mape)} | ${f(m.winkler / b["ewma-fhs"].winkler)} | ${f(m.winkler / best)} | ${f(m.pinball / b["ewma-fhs"].pinball)} | ${f(m.coverage)} | ${r.coverageByVolatility.map((t) => f(t.model, 2)).join(" / ")} | ${years.length ? `${f(Math.min(...years), 2)}..${f(Math.max(...years), 2)}` : "-"} | ${f(m.calibrationError)} | ${f(m.brier, 4)} / ${f(b["ewma-fhs"].brier, 4)} | ${f(r.dieboldMariano["ewma-fhs"].winkler, 2)} |`,
      );
    }
  }
}
out("");
out("| h | part | series | geometric mean Winkler / EWMA-FHS | without the synthetic series |");
out("| --- | --- | --- | --- | --- |");
for (const [key, values] of ratios) {
  const [h, part] = key.split(" ");
  out(
    `| ${h} | ${part === "tuning" ? "tuning (and series not tuned on)" : part} | ${values.length} | ${f(geometricMean(values))} | ${f(geometricMean(realRatios.get(key) ?? []))} |`,
  );
}
