import { createRequire } from "node:module";
import { runNode } from "./commands/node.js";
import { UsageError } from "./usage-error.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

const HELP = `Usage: strata <command> [flags]

Commands:
  node      run a chain node (JSON-RPC on 8545)
  dev       run the local development chain (dev network, instant mining)

Run 'strata <command> --help' for a command's flags. 'strata --version' prints the version.`;

/** Entry point of the `strata` command; resolves with the exit code. */
export async function main(
  argv: readonly string[],
  out: (line: string) => void = (l) => console.log(l),
): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case "help":
      case "--help":
      case "-h":
        out(HELP);
        return 0;
      case "--version":
      case "-v":
        out(`strata ${version}`);
        return 0;
      case "node":
        return await runNode(rest, out);
      case "dev":
        return await runNode(["--network", "dev", ...rest], out, "dev");
      default:
        throw new UsageError(`unknown command "${command}" (see strata --help)`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`strata: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
