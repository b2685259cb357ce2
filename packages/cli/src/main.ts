import { createRequire } from "node:module";
import { runDev } from "./commands/dev.js";
import { runExplorer } from "./commands/explorer.js";
import { runGateway } from "./commands/gateway.js";
import { runImport } from "./commands/import.js";
import { runIndexer } from "./commands/indexer.js";
import { runInit } from "./commands/init.js";
import { runKeys } from "./commands/keys.js";
import { runNode } from "./commands/node.js";
import { runPredictor } from "./commands/predictor.js";
import { runReporter } from "./commands/reporter.js";
import { runTestnet } from "./commands/testnet.js";
import { UsageError } from "./usage-error.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

const HELP = `Usage: strata <command> [flags]

Commands:
  node      run a chain node (JSON-RPC on 8545)
  dev       run the whole local stack: dev chain, indexer, API gateway and explorer
  testnet   run a local multi-process network: each dev validator as its own node, wired over p2p
  init      initialise a datadir from a geth-format genesis.json
  import    import a chain file of RLP blocks into a datadir
  indexer   index a node into PostgreSQL (embedded PGlite by default)
  gateway   run the API gateway (JSON-RPC, WebSocket, REST on 4000) in front of nodes
  keys      create, list and revoke the gateway's API keys
  explorer  serve the block explorer web app (on 15000) reading from an API gateway
  predictor backtest the price prediction model on a daily price file
  reporter  write prices to a chain's PriceOracle (strata reporter --rpc URL --key FILE --feed FILE)

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
      case "init":
        return await runInit(rest, out);
      case "import":
        return await runImport(rest, out);
      case "indexer":
        return await runIndexer(rest, out);
      case "gateway":
        return await runGateway(rest, out);
      case "keys":
        return await runKeys(rest, out);
      case "explorer":
        return await runExplorer(rest, out);
      case "predictor":
        return await runPredictor(rest, out);
      case "reporter":
        return await runReporter(rest, out);
      case "dev":
        return await runDev(rest, out);
      case "testnet":
        return await runTestnet(rest, out);
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
