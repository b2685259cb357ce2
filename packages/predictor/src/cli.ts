import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { type BacktestReport, backtest, DEFAULT_WARMUP } from "./backtest.js";
import { PriceCsvError, parsePriceCsv, rowsToPricePoints } from "./csv.js";
import { InsufficientHistoryError } from "./errors.js";
import type { ForecastMetrics } from "./metrics.js";
import { MIN_HISTORY_DAYS, MODEL_VERSION } from "./parameters.js";

const COMMAND = "strata predictor backtest";
const DEFAULT_HORIZONS = [1, 7, 30];

/** Usage text of {@link runBacktestCommand}. */
export const BACKTEST_USAGE = [
  `Usage: ${COMMAND} --csv FILE [--horizon DAYS ...] [--step N] [--warmup N]`,
  "",
  "Walk-forward backtest of the price model against a random walk on a daily price file.",
  "",
  "  --csv FILE       price file with header date,close (YYYY-MM-DD, one row per day)",
  `  --horizon DAYS   forecast horizon in days; repeat for several (default: ${DEFAULT_HORIZONS.join(", ")})`,
  "  --step N         score every N-th forecast origin (default: 1)",
  `  --warmup N       daily closes known at the first scored origin (default: ${DEFAULT_WARMUP}, min ${MIN_HISTORY_DAYS})`,
  "  -h, --help       show this help",
].join("\n");

interface BacktestArguments {
  csv: string;
  horizons: number[];
  step: number;
  warmup: number;
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
    const first = rows[0]?.date ?? "-";
    const last = rows.at(-1)?.date ?? "-";
    out(
      `${basename(args.csv)}: ${rows.length} daily closes ${first}..${last}; model ${MODEL_VERSION}, warmup ${args.warmup}, step ${args.step}`,
    );
    for (const horizon of args.horizons) {
      const report = backtest(points, horizon, { step: args.step, warmup: args.warmup });
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

/** The table of one horizon: model beside the random walk. */
export function formatReport(report: BacktestReport): string[] {
  const rows: [string, (m: ForecastMetrics) => string][] = [
    ["MAPE", (m) => percent(m.mape, 2)],
    ["directional accuracy", (m) => percent(m.directionalAccuracy, 1)],
    ["80% interval coverage", (m) => percent(m.coverage, 1)],
    ["calibration error", (m) => m.calibrationError.toFixed(3)],
    ["mean confidence", (m) => percent(m.meanConfidence, 1)],
    ["hit rate (within ±5%)", (m) => percent(m.hitRate, 1)],
  ];
  const days = report.horizon === 1 ? "1 day" : `${report.horizon} days`;
  return [
    `horizon ${days}: ${report.model.predictions} predictions`,
    `  ${"".padEnd(22)}${"model".padStart(10)}${"random walk".padStart(14)}`,
    ...rows.map(
      ([label, cell]) =>
        `  ${label.padEnd(22)}${cell(report.model).padStart(10)}${cell(report.baseline).padStart(14)}`,
    ),
  ];
}

function parseArguments(argv: readonly string[]): BacktestArguments {
  let csv: string | undefined;
  const horizons: number[] = [];
  let step = 1;
  let warmup = DEFAULT_WARMUP;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) throw new UsageError(`unexpected argument "${arg}"`);
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
      default:
        throw new UsageError(`unknown flag ${flag}`);
    }
  }
  if (csv === undefined) throw new UsageError("--csv FILE is required");
  return { csv, horizons: horizons.length > 0 ? horizons : DEFAULT_HORIZONS, step, warmup };
}

function wholeNumber(flag: string, text: string, min: number): number {
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(Number.isSafeInteger(n) && n >= min))
    throw new UsageError(`${flag} must be a whole number >= ${min}, got "${text}"`);
  return n;
}

function percent(fraction: number, digits: number): string {
  return `${(fraction * 100).toFixed(digits)}%`;
}

function isFileError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === "string";
}
