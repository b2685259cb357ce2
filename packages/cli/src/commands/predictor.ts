import { runBacktestCommand } from "@strata/predictor";
import { UsageError } from "../usage-error.js";

/** Help text of `strata predictor`. */
export const PREDICTOR_HELP = `Usage: strata predictor <subcommand> [flags]

Subcommands:
  backtest   walk-forward backtest of the price model against four baselines, with proper scores
             (strata predictor backtest --csv FILE [--horizon DAYS ...] [--step N] [--warmup N]
              [--from DATE] [--before DATE] [--json])

Run 'strata predictor backtest --help' for its flags.`;

/** `strata predictor …`: resolves with the exit code. */
export async function runPredictor(argv: readonly string[], out: (line: string) => void): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case undefined:
    case "help":
    case "--help":
    case "-h":
      out(PREDICTOR_HELP);
      return 0;
    case "backtest": {
      // The command reports its own usage errors on one line; they go to stderr like every other one.
      const lines: string[] = [];
      const code = await runBacktestCommand(rest, (line) => lines.push(line));
      if (code === 0) for (const line of lines) out(line);
      else for (const line of lines) process.stderr.write(`${line}\n`);
      return code;
    }
    default:
      throw new UsageError(`predictor: unknown subcommand "${sub}" (see strata predictor --help)`);
  }
}
