import {
  ImportError,
  importChainFile,
  loadNetwork,
  type NetworkFile,
  readDatadirNetwork,
} from "@strata/node";
import { type FlagSpec, formatFlags, parseFlags } from "../flags.js";
import { UsageError } from "../usage-error.js";
import { requiredString } from "./init.js";

/** Flags of `strata import`. */
export const IMPORT_FLAGS: Record<string, FlagSpec> = {
  datadir: { type: "string", description: "chain data directory (required; see strata init)" },
  network: {
    type: "string",
    description: "dev | mainnet | network file, for a datadir not made by strata init",
  },
  help: { type: "boolean", description: "print this help" },
};

/** Help text of `strata import`. */
export const IMPORT_HELP = `Usage: strata import --datadir DIR FILE.rlp

Imports a chain file (RLP blocks one after another, as 'geth export' writes them) on top of the
datadir's chain. Every block is executed and checked: parent, number, timestamp, gas limit, base fee,
difficulty, blob gas, transactions and withdrawals roots, gas used, logs bloom, receipts root,
requests hash and state root (the proof-of-work seal of historic blocks is not checked). Blocks
already in the chain are skipped. The first bad block stops the import with its number and the
reason; nothing of it is written, the blocks before it stay.

Flags (each also read from STRATA_<FLAG>, e.g. STRATA_DATADIR):
${formatFlags(IMPORT_FLAGS)}`;

/** Minimum time between two progress lines. */
const PROGRESS_INTERVAL_MS = 2000;

/** `strata import`: imports the file's blocks, printing progress and a summary. */
export async function runImport(argv: readonly string[], out: (line: string) => void): Promise<number> {
  const { flags, files } = splitPositionals(argv);
  const values = parseFlags(flags, IMPORT_FLAGS, { command: "import" });
  if (values.help) {
    out(IMPORT_HELP);
    return 0;
  }
  const datadir = requiredString(values.datadir, "datadir", "the chain data directory");
  if (files.length !== 1)
    throw new UsageError("expected exactly one chain file (strata import --datadir DIR FILE.rlp)");
  const network = importNetwork(datadir, values.network as string | undefined);
  let last = Date.now();
  try {
    const summary = await importChainFile(network, datadir, files[0]!, (progress) => {
      if (Date.now() - last < PROGRESS_INTERVAL_MS) return;
      last = Date.now();
      out(`block ${progress.number} ${progress.hash} (${progress.transactions} txs) ${progress.outcome}`);
    });
    out(
      `Imported ${summary.imported} blocks (${summary.known} already known) · head ${summary.head} ${summary.headHash}`,
    );
    return 0;
  } catch (error) {
    if (error instanceof ImportError) {
      process.stderr.write(`strata: import failed: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

function importNetwork(datadir: string, name: string | undefined): NetworkFile {
  try {
    if (name !== undefined) return loadNetwork(name);
    const remembered = readDatadirNetwork(datadir);
    if (remembered) return remembered;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  throw new UsageError(
    `datadir ${datadir} has no genesis: run 'strata init --genesis FILE --datadir ${datadir}' first (or pass --network)`,
  );
}

/** Separates positional arguments from flags (every flag but --help takes a value). */
function splitPositionals(argv: readonly string[]): { flags: string[]; files: string[] } {
  const flags: string[] = [];
  const files: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("-")) {
      files.push(arg);
      continue;
    }
    flags.push(arg);
    const name = arg.replace(/^--?/, "");
    const takesValue = !arg.includes("=") && name !== "help" && name !== "h";
    if (takesValue && i + 1 < argv.length) flags.push(argv[++i]!);
  }
  return { flags, files };
}
