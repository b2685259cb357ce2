import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createPublicClient, defineChain, http, type PublicClient } from "viem";

/** The `strata` entry point the tests run as separate processes. */
export const STRATA_BIN = fileURLToPath(new URL("../../bin/strata.js", import.meta.url));

/**
 * The first of the TCP ports the multi-process tests take (`STRATA_TEST_PORT_BASE`, default 25000):
 * testnet.test.ts uses the next 8, testnet-long-chain.test.ts the 14 from base + 20.
 */
export const TEST_PORT_BASE = Number(process.env.STRATA_TEST_PORT_BASE ?? 25000);

/** The dev chain as viem sees it, served at `url`. */
export function devChainAt(url: string) {
  return defineChain({
    id: 1337,
    name: "testnet",
    nativeCurrency: { name: "Strata", symbol: "STRA", decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
}

/** Polls `probe` (errors count as "not yet") until it gives a value, or fails after `ms`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** True while a process with this id exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** One JSON-RPC call (aborted after `timeoutMs`); throws with the node's message on an error answer. */
export async function rpc<T = unknown>(
  url: string,
  method: string,
  params: unknown[] = [],
  timeoutMs = 10_000,
): Promise<T> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/**
 * Starts `strata <args>` as a child process (stdout read for its `ready` line, logs passed through)
 * and resolves with it once it serves; rejects when it exits first or is not ready after 90 s.
 */
export async function spawnStrata(args: readonly string[], name: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [STRATA_BIN, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${name} not ready after 90 s`));
    }, 90_000);
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (!line.startsWith("ready ")) return;
      clearTimeout(timer);
      resolve();
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}) before it was ready`));
    });
  });
  return child;
}

/** Stops a child with SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
export async function stopChild(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/** A node of a test network: its command line, JSON-RPC URL, p2p identity and current process. */
export interface TestnetNode {
  readonly name: string;
  /** The validator it seals for (lowercase), or undefined for a full node. */
  readonly validator: string | undefined;
  readonly url: string;
  readonly wsUrl: string;
  /** The `strata` arguments it was started with (without the binary). */
  readonly args: readonly string[];
  readonly peerId: string;
  readonly client: PublicClient;
  pid: number;
}

/** How to start a test network. */
export interface TestnetOptions {
  readonly basePort: number;
  readonly datadir: string;
  /** Wipe the datadir first (default true). */
  readonly fresh?: boolean;
  readonly validators?: number;
  readonly followers?: number;
  /** Extra `strata testnet` flags. */
  readonly flags?: readonly string[];
  readonly logLevel?: string;
}

/**
 * `strata testnet` run as a child process for multi-process tests: parses its per-node lines, kills
 * and restarts single nodes by process id, and stops everything (escalating to SIGKILL by pid).
 */
export class Testnet {
  private readonly restarted: ChildProcess[] = [];
  private readonly down = new Set<number>();
  private readonly onExit = () => this.killAll();

  private constructor(
    private readonly parent: ChildProcess,
    readonly nodes: TestnetNode[],
  ) {
    process.once("exit", this.onExit);
  }

  /** Starts `strata testnet` and resolves once every node printed its `ready` line. */
  static async start(options: TestnetOptions): Promise<Testnet> {
    const args = [
      STRATA_BIN,
      "testnet",
      "--base-port",
      String(options.basePort),
      "--datadir",
      options.datadir,
      "--validators",
      String(options.validators ?? 4),
      "--followers",
      String(options.followers ?? 0),
      "--log-level",
      options.logLevel ?? "error",
      ...(options.fresh === false ? [] : ["--fresh"]),
      ...(options.flags ?? []),
    ];
    const parent = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    type Planned = { name: string; validator: string | undefined; pid: number; url: string };
    const planned: (Planned & { args: string[] })[] = [];
    const ready: string[] = [];
    let current: Planned | undefined;
    createInterface({ input: parent.stdout! }).on("line", (line) => {
      const header = /^(node-\d+) · (?:validator (0x[0-9a-fA-F]{40})|full node) · pid (\d+) · (\S+)$/.exec(
        line,
      );
      if (header)
        current = {
          name: header[1]!,
          validator: header[2]?.toLowerCase(),
          pid: Number(header[3]),
          url: header[4]!,
        };
      const command = /^ {2}strata (.*)$/.exec(line);
      if (command && current) planned.push({ ...current, args: command[1]!.split(" ") });
      const match = /^ready (\S+)$/.exec(line);
      if (match) ready.push(match[1]!);
    });
    const count = (options.validators ?? 4) + (options.followers ?? 0);
    try {
      await until("every ready line", async () => (ready.length === count ? true : undefined), 150_000);
    } catch (error) {
      parent.kill("SIGKILL");
      throw error;
    }
    // Each node lists the others as bootnodes: /ip4/127.0.0.1/tcp/<p2p port>/p2p/<peer id>.
    const peerIds = new Map<string, string>();
    for (const node of planned) {
      const bootnodes = node.args[node.args.indexOf("--bootnodes") + 1] ?? "";
      for (const address of bootnodes.split(",")) {
        const parts = /\/tcp\/(\d+)\/p2p\/(\w+)$/.exec(address);
        if (parts) peerIds.set(parts[1]!, parts[2]!);
      }
    }
    const nodes = planned.map((node) => {
      const p2pPort = node.args[node.args.indexOf("--p2p.port") + 1]!;
      return {
        name: node.name,
        validator: node.validator,
        url: node.url,
        wsUrl: node.url.replace(/^http/, "ws"),
        args: node.args,
        peerId: peerIds.get(p2pPort) ?? "",
        client: createPublicClient({
          chain: devChainAt(node.url),
          transport: http(node.url),
        }) as PublicClient,
        pid: node.pid,
      };
    });
    return new Testnet(parent, nodes);
  }

  /** The nodes that run (not killed, or restarted since). */
  get live(): TestnetNode[] {
    return this.nodes.filter((_, i) => !this.down.has(i));
  }

  /** kill -9 of node `i`; resolves once its process is gone. */
  async kill(i: number): Promise<void> {
    const node = this.nodes[i]!;
    process.kill(node.pid, "SIGKILL");
    this.down.add(i);
    await until("the killed node to exit", async () => (alive(node.pid) ? undefined : true), 10_000);
  }

  /** Starts node `i` again with its own command line plus `extra` flags; resolves once it serves. */
  async restart(i: number, extra: readonly string[] = []): Promise<void> {
    const node = this.nodes[i]!;
    const child = await spawnStrata([...node.args, ...extra], node.name);
    this.restarted.push(child);
    node.pid = child.pid!;
    this.down.delete(i);
  }

  /** The p2p addresses of the nodes (`/ip4/127.0.0.1/tcp/<port>/p2p/<peer id>`), for a node joining them. */
  get bootnodes(): string[] {
    return this.nodes.map((node) => {
      const port = node.args[node.args.indexOf("--p2p.port") + 1];
      return `/ip4/127.0.0.1/tcp/${port}/p2p/${node.peerId}`;
    });
  }

  /** Stops every node: SIGTERM, then SIGKILL by process id for any still running after 15 s. */
  async stop(): Promise<void> {
    process.off("exit", this.onExit);
    for (const child of [this.parent, ...this.restarted]) {
      if (child.pid !== undefined && alive(child.pid)) child.kill("SIGTERM");
    }
    const pids = this.pids();
    await until("every node to stop", async () => (pids.some(alive) ? undefined : true), 15_000).catch(() =>
      this.killAll(),
    );
  }

  private pids(): number[] {
    const all = [this.parent.pid, ...this.restarted.map((c) => c.pid), ...this.nodes.map((n) => n.pid)];
    return all.filter((pid): pid is number => pid !== undefined);
  }

  private killAll(): void {
    for (const pid of this.pids()) {
      if (alive(pid)) process.kill(pid, "SIGKILL");
    }
  }
}

/** A finalized block as one node reported it. */
interface FinalizedReport {
  readonly node: string;
  readonly number: bigint;
  readonly hash: string;
}

/**
 * Asks every live node for its finalized block twice a second, and checks later that no report was
 * ever contradicted: every node that has that height must hold the very same block there, and no
 * node's finalized block ever goes back.
 */
export class FinalityWatch {
  private readonly reports: FinalizedReport[] = [];
  private timer: NodeJS.Timeout | undefined;
  private polling = false;

  constructor(private readonly testnet: Testnet) {}

  /** Starts watching. */
  start(): void {
    this.timer = setInterval(() => void this.poll(), 500);
  }

  /** Stops watching. */
  stop(): void {
    clearInterval(this.timer);
  }

  /** How many reports were taken (a watch that saw nothing proves nothing). */
  get count(): number {
    return this.reports.length;
  }

  /** The highest finalized height any node reported. */
  get highest(): bigint {
    return this.reports.reduce((high, r) => (r.number > high ? r.number : high), 0n);
  }

  /** Reports that a live node's chain now contradicts, or a node whose finalized block went back. */
  async contradictions(): Promise<string[]> {
    const found: string[] = [];
    const last = new Map<string, bigint>();
    for (const report of this.reports) {
      const before = last.get(report.node) ?? 0n;
      if (report.number < before)
        found.push(`${report.node}: finalized went back from ${before} to ${report.number}`);
      last.set(report.node, report.number > before ? report.number : before);
    }
    const heights = [...new Set(this.reports.map((r) => r.number))];
    for (const node of this.testnet.live) {
      const canonical = new Map<bigint, string>();
      for (const number of heights) {
        const block = await node.client.getBlock({ blockNumber: number }).catch(() => undefined);
        if (block?.hash) canonical.set(number, block.hash);
      }
      for (const report of this.reports) {
        const hash = canonical.get(report.number);
        if (hash !== undefined && hash !== report.hash)
          found.push(
            `${report.node} reported ${report.hash} finalized at ${report.number}; ${node.name} has ${hash}`,
          );
      }
    }
    return found;
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      await Promise.all(
        this.testnet.live.map(async (node) => {
          const block = await node.client.getBlock({ blockTag: "finalized" }).catch(() => undefined);
          if (block?.hash && block.number !== null)
            this.reports.push({ node: node.name, number: block.number, hash: block.hash });
        }),
      );
    } finally {
      this.polling = false;
    }
  }
}
