import { rmSync } from "node:fs";
import { createNode, createNodeConfig, type MiningMode, privateKeyHex, type StrataNode } from "@strata/node";
import { type FlagSpec, type FlagValues, formatFlags, intFlag, parseFlags } from "../flags.js";
import { UsageError } from "../usage-error.js";

/** Flags of `strata node`. */
export const NODE_FLAGS: Record<string, FlagSpec> = {
  network: { type: "string", description: "dev | mainnet | path to a network file (default dev)" },
  datadir: { type: "string", description: "chain data directory (default .strata/<network>)" },
  "rpc.addr": { type: "string", description: "JSON-RPC listen address (default 127.0.0.1)" },
  "rpc.port": { type: "string", description: "JSON-RPC port, HTTP and WebSocket (default 8545)" },
  "rpc.txfeecap": {
    type: "string",
    description: "largest tx fee accepted, in wei; 0 disables (default 1 STRA)",
  },
  mining: { type: "string", description: "instant | interval | manual (default: the network's)" },
  "block-time": { type: "string", description: "seconds between blocks in interval mode" },
  fresh: { type: "boolean", description: "wipe the datadir before starting" },
  "log-level": { type: "string", description: "trace | debug | info | warn | error | silent (default info)" },
  help: { type: "boolean", description: "print this help" },
};

const MODES: readonly MiningMode[] = ["instant", "interval", "manual"];

/** Help text of `strata node`. */
export const NODE_HELP = `Usage: strata node [flags]

Runs a Strata chain node serving Ethereum JSON-RPC.

Flags (each also read from STRATA_<FLAG>, e.g. STRATA_RPC_PORT):
${formatFlags(NODE_FLAGS)}`;

/** Builds the node config from parsed flags. */
export function nodeConfigFromFlags(values: FlagValues) {
  const mining = values.mining as string | undefined;
  if (mining !== undefined && !MODES.includes(mining as MiningMode)) {
    throw new UsageError(`--mining: expected instant | interval | manual, got "${mining}"`);
  }
  const blockTime =
    values["block-time"] === undefined ? undefined : intFlag(values, "block-time", 2, 1, 3600);
  const feeCap = values["rpc.txfeecap"];
  if (feeCap !== undefined && (typeof feeCap !== "string" || !/^\d+$/.test(feeCap))) {
    throw new UsageError(`--rpc.txfeecap: expected an integer amount of wei, got "${String(feeCap)}"`);
  }
  const network = (values.network as string | undefined) ?? "dev";
  let config: ReturnType<typeof createNodeConfig>;
  try {
    config = createNodeConfig({
      network,
      ...(values.datadir === undefined ? {} : { datadir: values.datadir as string }),
      rpc: {
        ...(values["rpc.addr"] === undefined ? {} : { addr: values["rpc.addr"] as string }),
        port: intFlag(values, "rpc.port", 8545, 0, 65535),
        ...(feeCap === undefined ? {} : { txFeeCap: BigInt(feeCap as string) }),
      },
      mining: {
        ...(mining === undefined
          ? blockTime === undefined
            ? {}
            : { mode: "interval" as const }
          : { mode: mining as MiningMode }),
        ...(blockTime === undefined ? {} : { blockTimeSeconds: blockTime }),
      },
      ...(values["log-level"] === undefined ? {} : { logLevel: values["log-level"] as string }),
    });
  } catch (error) {
    if (error instanceof Error && /ENOENT/.test(error.message))
      throw new UsageError(`--network: no such network or file "${network}"`);
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  return config;
}

/** `strata node`: runs until SIGINT/SIGTERM, printing `ready <url>` once it serves. */
export async function runNode(
  argv: readonly string[],
  out: (line: string) => void,
  command = "node",
): Promise<number> {
  const values = parseFlags(argv, NODE_FLAGS, { command });
  if (values.help) {
    out(NODE_HELP);
    return 0;
  }
  const config = nodeConfigFromFlags(values);
  if (values.fresh && config.datadir) rmSync(config.datadir, { recursive: true, force: true });
  const node = await createNode(config);
  await node.start();
  printBanner(node, out);
  out(`ready ${node.rpcUrl}`);
  out(`ready ${node.wsUrl}`);
  await untilSignal();
  await node.stop();
  return 0;
}

function printBanner(node: StrataNode, out: (line: string) => void): void {
  const { network } = node.config;
  out(
    `Strata node · network ${network.name} · chain id ${network.chainId} · mining ${node.config.mining.mode}`,
  );
  out(`Datadir: ${node.config.datadir ?? "(memory)"} · head block ${node.chain.head.header.number}`);
  if (node.devAccounts.length > 0) {
    out("");
    out("Available accounts (10,000 STRA each at genesis)");
    node.devAccounts.forEach((a, i) => {
      out(`(${i}) ${a.address}  private key ${privateKeyHex(a)}`);
    });
    out(`Mnemonic: ${network.devAccounts?.mnemonic}`);
    out("");
  }
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off("SIGINT", done);
      process.off("SIGTERM", done);
      resolve();
    };
    process.on("SIGINT", done);
    process.on("SIGTERM", done);
  });
}
