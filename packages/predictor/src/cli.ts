import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { type BacktestReport, backtest, DEFAULT_WARMUP } from "./backtest.js";
import { BASELINE_NAMES } from "./baseline.js";
import { PriceCsvError, parsePriceCsv, rowsToPricePoints } from "./csv.js";
import { InsufficientHistoryError } from "./errors.js";
import type { ForecastMetrics } from "./metrics.js";
import { MIN_HISTORY_DAYS, MODEL_VERSION, QUANTILE_LEVELS } from "./parameters.js";

const COMMAND = "strata predictor backtest";
const DEFAULT_HORIZONS = [1, 7, 30];

/** Usage text of {@link runBacktestCommand}. */
export const BACKTEST_USAGE = [
  `Usage: ${COMMAND} --csv FILE [--horizon DAYS ...] [--step N] [--warmup N] [--from DATE] [--before DATE] [--json]`,
  "",
  "Walk-forward backtest of the price model against baselines on a daily price file: random walk",
  "with 90-day volatility (rw-vol90), EWMA 0.94 normal (ewma-normal), EWMA filtered historical",
  "simulation (ewma-fhs) and GARCH(1,1)-t (garch), all scored on the same origins.",
  "",
  "  --csv FILE       price file with header date,close (YYYY-MM-DD, one row per day)",
  `  --horizon DAYS   forecast horizon in days; repeat for several (default: ${DEFAULT_HORIZONS.join(", ")})`,
  "  --step N         score every N-th forecast origin (default: 1)",
  `  --warmup N       daily closes known at the first scored origin (default: ${DEFAULT_WARMUP}, min ${MIN_HISTORY_DAYS})`,
  "  --from DATE      score only origins on or after DATE (YYYY-MM-DD); earlier closes still train",
  "  --before DATE    score only origins before DATE",
  "  --json           print one JSON object (summary and every scored forecast); needs one --horizon",
  "  -h, --help       show this help",
].join("\n");

interface BacktestArguments {
  csv: string;
  horizons: number[];
  step: number;
  warmup: number;
  fromDay: number | undefined;
  beforeDay: number | undefined;
  json: boolean;
}

/** A command-line mistake, reported as one line. */
class UsageError extends Error {}

/**
 * Runs `strata predictor backtest` with the arguments that follow those two words, writing lines to
 * `out`. Returns the exit code: 0 on success (and for --help), 2 for bad flags, 1 when the file
 * cannot be read or backtested.
 */
export async function runBacktestCommand(
  argv: readonly string[],
  out: (line: string) => void,
): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    for (const line of BACKTEST_USAGE.split("\n")) out(line);
    return 0;
  }
  let args: BacktestArguments;
  try {
    args = parseArguments(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    out(`${COMMAND}: ${error.message} (see --help)`);
    return 2;
  }
  try {
    const rows = parsePriceCsv(await readFile(args.csv, "utf8"));
    const points = rowsToPricePoints(rows);
    const options = {
      step: args.step,
      warmup: args.warmup,
      fromDay: args.fromDay,
      beforeDay: args.beforeDay,
    };
    if (args.json) {
      out(JSON.stringify(jsonReport(basename(args.csv), backtest(points, args.horizons[0]!, options))));
      return 0;
    }
    const first = rows[0]?.date ?? "-";
    const last = rows.at(-1)?.date ?? "-";
    out(
      `${basename(args.csv)}: ${rows.length} daily closes ${first}..${last}; model ${MODEL_VERSION}, warmup ${args.warmup}, step ${args.step}`,
    );
    for (const horizon of args.horizons) {
      const report = backtest(points, horizon, options);
      out("");
      for (const line of formatReport(report)) out(line);
    }
    return 0;
  } catch (error) {
    if (error instanceof PriceCsvError) out(`${COMMAND}: ${args.csv}: ${error.message}`);
    else if (error instanceof InsufficientHistoryError) out(`${COMMAND}: ${args.csv}: ${error.message}`);
    else if (isFileError(error)) out(`${COMMAND}: cannot read ${args.csv}: ${error.message}`);
    else throw error;
    return 1;
  }
}

/** The tables of one horizon: model beside each baseline, coverage by group, Diebold-Mariano t. */
export function formatReport(report: BacktestReport): string[] {
  const rows: [string, (m: ForecastMetrics) => string][] = [
    ["MAPE", (m) => percent(m.mape, 2)],
    ["directional accuracy", (m) => percent(m.directionalAccuracy, 1)],
    ["80% interval coverage", (m) => percent(m.coverage, 1)],
    ["Winkler score (80%)", (m) => m.winkler.toFixed(4)],
    ["pinball loss (mean)", (m) => m.pinball.toFixed(5)],
    ["Brier score", (m) => m.brier.toFixed(4)],
    ["calibration error", (m) => m.calibrationError.toFixed(3)],
    ["mean confidence", (m) => percent(m.meanConfidence, 1)],
    ["hit rate (within ±5%)", (m) => percent(m.hitRate, 1)],
  ];
  const days = report.horizon === 1 ? "1 day" : `${report.horizon} days`;
  const cell = (text: string) => text.padStart(13);
  const header = `  ${"".padEnd(24)}${cell("model")}${BASELINE_NAMES.map(cell).join("")}`;
  const coverageRow = (label: string, g: BacktestReport["coverageByYear"][number]) =>
    `  ${label.padEnd(24)}${cell(percent(g.model, 1))}${BASELINE_NAMES.map((n) => cell(percent(g.baselines[n], 1))).join("")}`;
  return [
    `horizon ${days}: ${report.model.predictions} predictions (Winkler and pinball in units of the origin price)`,
    header,
    ...rows.map(
      ([label, value]) =>
        `  ${label.padEnd(24)}${cell(value(report.model))}${BASELINE_NAMES.map((n) => cell(value(report.baselines[n]))).join("")}`,
    ),
    "  coverage by volatility tercile (30-day volatility at the origin)",
    ...report.coverageByVolatility.map((g, i) =>
      coverageRow(`${["calm", "middle", "turbulent"][i]} (n ${g.predictions})`, { ...g, year: 0 }),
    ),
    "  coverage by calendar year of the origin",
    ...report.coverageByYear.map((g) => coverageRow(`${g.year} (n ${g.predictions})`, g)),
    `  Diebold-Mariano t, model - baseline (HAC lag ${report.horizon}; negative: model better)`,
    ...(["winkler", "pinball", "brier"] as const).map(
      (loss) =>
        `  ${loss.padEnd(24)}${cell("")}${BASELINE_NAMES.map((n) => cell(report.dieboldMariano[n][loss].toFixed(2))).join("")}`,
    ),
  ];
}

/** The `--json` object: summary and every scored forecast with prices as numbers. */
export function jsonReport(series: string, report: BacktestReport): Record<string, unknown> {
  const { forecasts, horizon, modelVersion, ...summary } = report;
  return {
    series,
    horizon,
    modelVersion,
    summary,
    forecasts: forecasts.map((f) => ({
      origin: isoDay(f.originDay),
      target: isoDay(f.targetDay),
      price: f.price,
      median: f.median,
      quantiles: Object.fromEntries(
        QUANTILE_LEVELS.map((p, i) => [String(Math.round(p * 100)), f.quantiles[i]]),
      ),
      confidence: f.confidence,
      probabilityUp: f.probabilityUp,
      realised: f.realised,
    })),
  };
}

function isoDay(day: number): string {
  return new Date(day * 86_400_000).toISOString().slice(0, 10);
}

function parseArguments(argv: readonly string[]): BacktestArguments {
  let csv: string | undefined;
  const horizons: number[] = [];
  let step = 1;
  let warmup = DEFAULT_WARMUP;
  let fromDay: number | undefined;
  let beforeDay: number | undefined;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) throw new UsageError(`unexpected argument "${arg}"`);
    if (arg === "--json") {
      json = true;
      continue;
    }
    const eq = arg.indexOf("=");
    const flag = eq < 0 ? arg : arg.slice(0, eq);
    const value = (): string => {
      if (eq >= 0) return arg.slice(eq + 1);
      const next = argv[++i];
      if (next === undefined) throw new UsageError(`${flag} needs a value`);
      return next;
    };
    switch (flag) {
      case "--csv":
        if (csv !== undefined) throw new UsageError("--csv given twice");
        csv = value();
        if (csv === "") throw new UsageError("--csv needs a file name");
        break;
      case "--horizon":
        horizons.push(wholeNumber(flag, value(), 1));
        break;
      case "--step":
        step = wholeNumber(flag, value(), 1);
        break;
      case "--warmup":
        warmup = wholeNumber(flag, value(), MIN_HISTORY_DAYS);
        break;
      case "--from":
        fromDay = dayOf(flag, value());
        break;
      case "--before":
        beforeDay = dayOf(flag, value());
        break;
      default:
        throw new UsageError(`unknown flag ${flag}`);
    }
  }
  if (csv === undefined) throw new UsageError("--csv FILE is required");
  if (json && horizons.length !== 1) throw new UsageError("--json needs exactly one --horizon");
  return {
    csv,
    horizons: horizons.length > 0 ? horizons : DEFAULT_HORIZONS,
    step,
    warmup,
    fromDay,
    beforeDay,
    json,
  };
}

function wholeNumber(flag: string, text: string, min: number): number {
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(Number.isSafeInteger(n) && n >= min))
    throw new UsageError(`${flag} must be a whole number >= ${min}, got "${text}"`);
  return n;
}

function dayOf(flag: string, text: string): number {
  const time = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Number.NaN;
  if (!Number.isFinite(time)) throw new UsageError(`${flag} must be a date YYYY-MM-DD, got "${text}"`);
  return time / 86_400_000;
}

function percent(fraction: number, digits: number): string {
  return `${(fraction * 100).toFixed(digits)}%`;
}

function isFileError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === "string";
}
