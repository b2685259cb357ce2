import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { addressOfPrivateKey, devValidatorKeys, loadNetwork, loadP2PIdentity } from "@strata/node";
import { type ChildService, startChildService } from "../child-service.js";
import { type FlagSpec, type FlagValues, formatFlags, intFlag, parseFlags } from "../flags.js";
import { untilSignal } from "../signals.js";
import { UsageError } from "../usage-error.js";

/** Flags of `strata testnet`. */
export const TESTNET_FLAGS: Record<string, FlagSpec> = {
  validators: {
    type: "string",
    description: "validator processes, one per dev genesis validator (1..4, default 4)",
  },
  followers: { type: "string", description: "full nodes without a key (default 0)" },
  "base-port": {
    type: "string",
    description: "node i serves JSON-RPC on base+2i and p2p on base+2i+1 (default 8545)",
  },
  datadir: {
    type: "string",
    description: "directory holding node-<i>/ of every node (default .strata/testnet)",
  },
  "block-time": { type: "string", description: "seconds between blocks (default 1)" },
  fresh: { type: "boolean", description: "wipe the datadir before starting" },
  "log-level": { type: "string", description: "log level of the nodes (default warn)" },
  "test.peer-deny": {
    type: "boolean",
    description:
      "TEST ONLY: start every node with --test.peer-deny (test_setDeniedPeers, for partition tests)",
  },
  help: { type: "boolean", description: "print this help" },
};

/** Help text of `strata testnet`. */
export const TESTNET_HELP = `Usage: strata testnet [flags]

Runs a local multi-process network of the dev genesis: each genesis validator as its own
\`strata node\` process with its own key, datadir, JSON-RPC and p2p ports, plus optional full nodes,
all wired to each other as bootnodes on 127.0.0.1. Prints one \`ready <url>\` line per node (its
JSON-RPC URL), then each node's command line and process id. Ctrl-C stops every node.

Flags (each also read from STRATA_<FLAG>, e.g. STRATA_BASE_PORT):
${formatFlags(TESTNET_FLAGS)}`;

/** Time a node gets to stop cleanly before it is killed. */
const STOP_GRACE_MS = 5_000;

/** One node of the local network, as planned before it starts. */
interface PlannedNode {
  readonly name: string;
  readonly validator: string | undefined;
  readonly args: readonly string[];
}

/** Plans every node: datadirs, keys, identities, ports and the bootnode list. */
async function planNodes(values: FlagValues): Promise<PlannedNode[]> {
  const network = loadNetwork("dev");
  const keys = devValidatorKeys(network);
  const validators = intFlag(values, "validators", keys.length, 1, keys.length);
  const followers = intFlag(values, "followers", 0, 0, 16);
  const basePort = intFlag(values, "base-port", 8545, 1, 65535 - 2 * (validators + followers));
  const blockTime = intFlag(values, "block-time", 1, 1, 3600);
  const logLevel = (values["log-level"] as string | undefined) ?? "warn";
  const root = resolve((values.datadir as string | undefined) ?? ".strata/testnet");
  if (values.fresh) rmSync(root, { recursive: true, force: true });
  const count = validators + followers;
  const nodes = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const datadir = join(root, `node-${i}`);
      mkdirSync(datadir, { recursive: true });
      const identity = await loadP2PIdentity(datadir);
      return {
        i,
        datadir,
        peerId: identity.peerId,
        rpcPort: basePort + 2 * i,
        p2pPort: basePort + 2 * i + 1,
      };
    }),
  );
  const addressOf = (n: (typeof nodes)[number]) => `/ip4/127.0.0.1/tcp/${n.p2pPort}/p2p/${n.peerId}`;
  return nodes.map((n) => {
    const bootnodes = nodes.filter((other) => other !== n).map(addressOf);
    const common = [
      "node",
      "--network",
      "dev",
      "--datadir",
      n.datadir,
      "--rpc.port",
      String(n.rpcPort),
      "--p2p.port",
      String(n.p2pPort),
      "--p2p.addr",
      "127.0.0.1",
      ...(bootnodes.length > 0 ? ["--bootnodes", bootnodes.join(",")] : []),
      "--rpc.call-workers",
      "0",
      "--no-reporter",
      "--no-demo",
      "--log-level",
      logLevel,
      ...(values["test.peer-deny"] === true ? ["--test.peer-deny"] : []),
    ];
    if (n.i >= validators) {
      // A full node: it verifies and serves, and seals nothing on its own.
      return { name: `node-${n.i}`, validator: undefined, args: [...common, "--mining", "manual"] };
    }
    const key = keys[n.i]!;
    const keyFile = join(n.datadir, "validator.key");
    writeFileSync(keyFile, `${Buffer.from(key).toString("hex")}\n`, { mode: 0o600 });
    return {
      name: `node-${n.i}`,
      validator: addressOfPrivateKey(key),
      args: [
        ...common,
        "--validator-key",
        keyFile,
        "--mining",
        "interval",
        "--block-time",
        String(blockTime),
      ],
    };
  });
}

/** `strata testnet`: starts the nodes, prints their `ready` lines, and stops them all on SIGINT/SIGTERM. */
export async function runTestnet(argv: readonly string[], out: (line: string) => void): Promise<number> {
  const values = parseFlags(argv, TESTNET_FLAGS, { command: "testnet" });
  if (values.help) {
    out(TESTNET_HELP);
    return 0;
  }
  const planned = await planNodes(values);
  // Validators start with production paused and begin together once every node sees every other:
  // a validator still starting would miss its first slots and be jailed for them.
  const started = await Promise.allSettled(
    planned.map((node) => startChildService(node.validator ? paused(node.args) : node.args, 2, () => {})),
  );
  const services = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const failed = started.find((result) => result.status === "rejected");
  if (failed) {
    await Promise.all(services.map((service) => service.stop(STOP_GRACE_MS)));
    throw new UsageError((failed as PromiseRejectedResult).reason?.message ?? "a node failed to start");
  }
  const validators = planned.filter((node) => node.validator !== undefined).length;
  await startProduction(planned, services);
  out(
    `Strata testnet · dev genesis · ${validators} validator(s), ${planned.length - validators} full node(s)`,
  );
  planned.forEach((node, i) => {
    const service = services[i]!;
    out(
      `${node.name} · ${node.validator ? `validator ${node.validator}` : "full node"} · pid ${service.process.pid} · ${service.urls[0]}`,
    );
    out(`  strata ${node.args.join(" ")}`);
    watchExit(node.name, service, out);
  });
  for (const service of services) out(`ready ${service.urls[0]}`);
  await untilSignal();
  await Promise.all(services.map((service) => service.stop(STOP_GRACE_MS)));
  return 0;
}

/** `args` with interval mining replaced by manual mining (production paused until it is switched on). */
function paused(args: readonly string[]): string[] {
  const at = args.indexOf("--mining");
  return [...args.slice(0, at), "--mining", "manual", ...args.slice(at + 4)];
}

/**
 * Waits (at most 30 s) until every node has a peer in every other, then switches each validator to
 * interval mining at the planned block time with `evm_setIntervalMining`.
 */
async function startProduction(
  planned: readonly PlannedNode[],
  services: readonly ChildService[],
): Promise<void> {
  const call = async (url: string, method: string, params: unknown[]) => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    return ((await response.json()) as { result?: unknown }).result;
  };
  const urls = services.map((service) => service.urls[0]!);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const peers = await Promise.all(urls.map((url) => call(url, "net_peerCount", []).catch(() => "0x0")));
    if (peers.every((count) => Number(count) >= urls.length - 1)) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await Promise.all(
    planned.map((node, i) => {
      if (!node.validator) return undefined;
      const seconds = Number(node.args[node.args.indexOf("--block-time") + 1]);
      return call(urls[i]!, "evm_setIntervalMining", [seconds * 1000]);
    }),
  );
}

function watchExit(name: string, service: ChildService, out: (line: string) => void): void {
  void service.exited.then((code) => out(`${name} exited (${code})`));
}
