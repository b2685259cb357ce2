import { InitError, initDatadir } from "@strata/node";
import { type FlagSpec, formatFlags, parseFlags } from "../flags.js";
import { UsageError } from "../usage-error.js";

/** Flags of `strata init`. */
export const INIT_FLAGS: Record<string, FlagSpec> = {
  genesis: { type: "string", description: "geth-format genesis.json (required)" },
  datadir: { type: "string", description: "chain data directory to initialise (required)" },
  help: { type: "boolean", description: "print this help" },
};

/** Help text of `strata init`. */
export const INIT_HELP = `Usage: strata init --genesis FILE --datadir DIR

Initialises a datadir from a geth-format genesis file (chain config with block- and
timestamp-scheduled forks and blob schedule; alloc with balances, code, storage and nonces).
The datadir remembers the network, so 'strata node --datadir DIR' serves this chain.
Running it again with the same genesis changes nothing; another genesis is refused.

Flags (each also read from STRATA_<FLAG>, e.g. STRATA_DATADIR):
${formatFlags(INIT_FLAGS)}`;

/** `strata init`: writes the genesis state and block, prints the genesis hash. */
export async function runInit(argv: readonly string[], out: (line: string) => void): Promise<number> {
  const values = parseFlags(argv, INIT_FLAGS, { command: "init" });
  if (values.help) {
    out(INIT_HELP);
    return 0;
  }
  const genesis = requiredString(values.genesis, "genesis", "a geth-format genesis.json");
  const datadir = requiredString(values.datadir, "datadir", "the directory to initialise");
  try {
    const result = await initDatadir(genesis, datadir);
    out(
      `${result.created ? "Initialised" : "Already initialised:"} ${datadir} · chain id ${result.chainId} · genesis ${result.genesisHash}`,
    );
    return 0;
  } catch (error) {
    if (error instanceof InitError) {
      process.stderr.write(`strata: init failed: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

/** A required string flag, or a usage error naming it. */
export function requiredString(value: unknown, name: string, what: string): string {
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required: ${what}`);
  return value;
}
