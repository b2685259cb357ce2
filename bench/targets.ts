import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { RpcClient, sleep } from "./rpc.js";

export type TargetName = "anvil" | "strata";
/**
 * `instant`: a block per transaction (anvil automine); `interval`: a block every second; `manual`: blocks
 * only on `evm_mine` / `anvil_mine` (anvil `--no-mining`, Strata `--mining manual`).
 */
export type MiningMode = "instant" | "interval" | "manual";

export const TARGETS: readonly TargetName[] = ["anvil", "strata"];
export const CHAIN_ID = 1337;
export const BLOCK_TIME_SECONDS = 1;

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(BENCH_DIR, "..");
/** Strata's CLI entry point; `STRATA_CLI` overrides it (e.g. to benchmark another checkout). */
export const STRATA_CLI = process.env.STRATA_CLI
  ? resolve(process.env.STRATA_CLI)
  : join(REPO_ROOT, "packages", "cli", "bin", "strata.js");

/** Ports the nodes listen on: 18500-18599, or `BENCH_PORTS=LOW-HIGH`. */
const [PORT_MIN, PORT_MAX] = portRange(process.env.BENCH_PORTS ?? "18500-18599");
const READY_TIMEOUT_MS = 60_000;

/** A target that cannot be benchmarked in this run (missing binary, failed start). */
export class TargetUnavailableError extends Error {
  constructor(
    readonly target: TargetName,
    message: string,
  ) {
    super(message);
    this.name = "TargetUnavailableError";
  }
}

export interface NodeHandle {
  readonly target: TargetName;
  readonly mode: MiningMode;
  readonly url: string;
  readonly pid: number;
  /** The command line that started the node, for the report. */
  readonly command: string;
  stop(): Promise<void>;
}

/** Human-readable mining configuration, per target. */
export function miningLabel(target: TargetName, mode: MiningMode): string {
  if (mode === "manual") return target === "anvil" ? "--no-mining" : "manual";
  if (target === "anvil") return mode === "instant" ? "automine" : `--block-time ${BLOCK_TIME_SECONDS}`;
  return mode === "instant" ? "instant" : `interval ${BLOCK_TIME_SECONDS}s`;
}

// ---- child-process bookkeeping: every node we start is killed by PID on the way out ----

const children = new Map<number, ChildProcess>();
const datadirs = new Set<string>();

/** Synchronous last-resort cleanup (exit, SIGINT): SIGKILL every node still running, by PID. */
export function killAllNodes(): void {
  for (const [pid, child] of children) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
  children.clear();
  for (const dir of datadirs) rmSync(dir, { recursive: true, force: true });
  datadirs.clear();
}

async function stopChild(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((res) => child.once("exit", () => res()));
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // already gone
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((res) => {
      timer = setTimeout(() => res("timeout"), 5_000);
    });
    const outcome = await Promise.race([exited, timeout]);
    clearTimeout(timer);
    if (outcome === "timeout") {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
      await exited;
    }
  }
  children.delete(pid);
}

// ---- ports ----

function portRange(spec: string): [number, number] {
  const match = /^(\d+)-(\d+)$/.exec(spec.trim());
  const low = Number(match?.[1]);
  const high = Number(match?.[2]);
  if (!match || low < 1024 || high > 65535 || high - low < 10) {
    throw new Error(`BENCH_PORTS must look like 18500-18599 (at least 11 ports), got "${spec}"`);
  }
  return [low, high];
}

let nextPort = PORT_MIN + 10;

function portIsFree(port: number): Promise<boolean> {
  return new Promise((res) => {
    const server = net.createServer();
    server.once("error", () => res(false));
    server.listen(port, "127.0.0.1", () => server.close(() => res(true)));
  });
}

/** A free port in the bench range (18500-18599 unless `BENCH_PORTS` says otherwise); each node gets a new one. */
export async function allocatePort(): Promise<number> {
  for (let tries = 0; tries <= PORT_MAX - PORT_MIN; tries++) {
    const port = nextPort;
    nextPort = nextPort >= PORT_MAX ? PORT_MIN : nextPort + 1;
    if (await portIsFree(port)) return port;
  }
  throw new Error(`no free port in ${PORT_MIN}-${PORT_MAX}`);
}

/** The first of `count` consecutive free ports in the bench range (a `strata testnet --base-port`). */
export async function allocatePortBlock(count: number): Promise<number> {
  for (let base = PORT_MIN + 10; base + count - 1 <= PORT_MAX; base += count) {
    const ports = Array.from({ length: count }, (_, i) => base + i);
    if ((await Promise.all(ports.map(portIsFree))).every(Boolean)) return base;
  }
  throw new Error(`no ${count} consecutive free ports in ${PORT_MIN}-${PORT_MAX}`);
}

// ---- anvil ----

export function anvilBinary(): string {
  if (process.env.ANVIL_BIN) return process.env.ANVIL_BIN;
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  return join(REPO_ROOT, "node_modules", "@foundry-rs", `anvil-${process.platform}-${arch}`, "bin", "anvil");
}

export function anvilVersion(): string | null {
  try {
    return execFileSync(anvilBinary(), ["--version"], { encoding: "utf8" }).split("\n")[0]?.trim() ?? null;
  } catch {
    return null;
  }
}

async function startAnvil(mode: MiningMode): Promise<NodeHandle> {
  const bin = anvilBinary();
  if (!existsSync(bin)) throw new TargetUnavailableError("anvil", `anvil binary not found at ${bin}`);
  const port = await allocatePort();
  const args = ["--port", String(port), "--host", "127.0.0.1", "--silent", "--chain-id", String(CHAIN_ID)];
  if (mode === "interval") args.push("--block-time", String(BLOCK_TIME_SECONDS));
  if (mode === "manual") args.push("--no-mining");
  const child = spawn(bin, args, { stdio: ["ignore", "ignore", "pipe"] });
  const output = captureOutput(child);
  const url = `http://127.0.0.1:${port}`;
  try {
    const pid = await spawned(child);
    await pollUntilServing(url, child, output);
    return handle("anvil", mode, url, child, pid, `${relative(REPO_ROOT, bin)} ${args.join(" ")}`);
  } catch (err) {
    await stopChild(child);
    throw new TargetUnavailableError("anvil", `anvil failed to start: ${(err as Error).message}`);
  }
}

// ---- strata ----

async function startStrata(mode: MiningMode, ephemeral: boolean): Promise<NodeHandle> {
  if (!existsSync(STRATA_CLI)) {
    throw new TargetUnavailableError(
      "strata",
      `Strata CLI not found at ${relative(REPO_ROOT, STRATA_CLI)} (build the CLI first); skipping Strata`,
    );
  }
  const port = await allocatePort();
  const datadir = ephemeral ? undefined : await mkdtemp(join(tmpdir(), "strata-bench-"));
  if (datadir) datadirs.add(datadir);
  const entry = relative(REPO_ROOT, STRATA_CLI);
  const args = [
    entry.startsWith("..") ? STRATA_CLI : entry,
    "node",
    "--network",
    "dev",
    "--rpc.port",
    String(port),
    // The WebSocket scenario opens its 1,000 clients from one address.
    "--rpc.ws-max-per-ip",
    "0",
    ...(datadir ? ["--datadir", datadir] : ["--ephemeral"]),
    "--mining",
    mode,
    // The dev price reporter writes oracle history at start; anvil has nothing like it to compete with the load.
    "--no-reporter",
    // The DePIN demo's heartbeats would be blocks and transactions the load did not send.
    "--no-demo",
  ];
  if (mode === "interval") args.push("--block-time", String(BLOCK_TIME_SECONDS));
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
  const output = captureOutput(child);
  const cleanup = async () => {
    await stopChild(child);
    if (!datadir) return;
    await rm(datadir, { recursive: true, force: true });
    datadirs.delete(datadir);
  };
  try {
    const pid = await spawned(child);
    const url = await waitForReadyLine(child, output);
    const rpc = new RpcClient(url);
    try {
      const chainId = Number.parseInt(await rpc.call<string>("eth_chainId"), 16);
      if (chainId !== CHAIN_ID) console.warn(`  ! Strata reports chain id ${chainId}, expected ${CHAIN_ID}`);
    } finally {
      rpc.close();
    }
    const command = `node ${args.join(" ")}`;
    const h = handle("strata", mode, url, child, pid, command);
    return { ...h, stop: cleanup };
  } catch (err) {
    await cleanup();
    throw new TargetUnavailableError("strata", `Strata failed to start: ${(err as Error).message}`);
  }
}

/** Strata announces `ready http://127.0.0.1:P` on stdout once it serves RPC. */
function waitForReadyLine(child: ChildProcess, output: OutputTail): Promise<string> {
  return new Promise((res, rej) => {
    if (!child.stdout) return rej(new Error("no stdout"));
    const lines = createInterface({ input: child.stdout });
    const timer = setTimeout(() => {
      finish();
      rej(new Error(`no "ready" line within ${READY_TIMEOUT_MS / 1000}s${output.describe()}`));
    }, READY_TIMEOUT_MS);
    const onExit = (code: number | null, signal: string | null) => {
      finish();
      rej(new Error(`exited (code ${code}, signal ${signal}) before becoming ready${output.describe()}`));
    };
    const onLine = (line: string) => {
      output.push(line);
      const match = /\bready (http:\/\/\S+)/.exec(line);
      if (match?.[1]) {
        finish();
        // keep draining stdout so the child never blocks on a full pipe
        lines.on("line", (l) => output.push(l));
        res(match[1].replace(/\/$/, ""));
      }
    };
    const finish = () => {
      clearTimeout(timer);
      child.off("exit", onExit);
      lines.off("line", onLine);
    };
    child.on("exit", onExit);
    lines.on("line", onLine);
  });
}

// ---- shared helpers ----

/**
 * Starts `target` in `mode`. `ephemeral`: Strata keeps its chain in memory for the run
 * (`--ephemeral`), as anvil always does; otherwise in a datadir on disk.
 */
export async function startNode(
  target: TargetName,
  mode: MiningMode,
  ephemeral = false,
): Promise<NodeHandle> {
  return target === "anvil" ? startAnvil(mode) : startStrata(mode, ephemeral);
}

function handle(
  target: TargetName,
  mode: MiningMode,
  url: string,
  child: ChildProcess,
  pid: number,
  command: string,
): NodeHandle {
  return { target, mode, url, pid, command, stop: () => stopChild(child) };
}

function spawned(child: ChildProcess): Promise<number> {
  return new Promise((res, rej) => {
    child.once("error", rej);
    child.once("spawn", () => {
      if (child.pid === undefined) return rej(new Error("no pid"));
      children.set(child.pid, child);
      res(child.pid);
    });
  });
}

async function pollUntilServing(url: string, child: ChildProcess, output: OutputTail): Promise<void> {
  const rpc = new RpcClient(url, { maxSockets: 1, timeoutMs: 2_000 });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`exited (code ${child.exitCode}, signal ${child.signalCode})${output.describe()}`);
      }
      try {
        const chainId = Number.parseInt(await rpc.call<string>("eth_chainId"), 16);
        if (chainId !== CHAIN_ID) throw new Error(`chain id ${chainId}, expected ${CHAIN_ID}`);
        return;
      } catch (err) {
        if ((err as Error).message.startsWith("chain id")) throw err;
        await sleep(100);
      }
    }
    throw new Error(`eth_chainId did not answer within ${READY_TIMEOUT_MS / 1000}s${output.describe()}`);
  } finally {
    rpc.close();
  }
}

interface OutputTail {
  push(line: string): void;
  describe(): string;
}

/** Keeps the last lines of a child's output for error messages, and drains its pipes. */
function captureOutput(child: ChildProcess): OutputTail {
  const tail: string[] = [];
  const push = (line: string) => {
    tail.push(line);
    if (tail.length > 20) tail.shift();
  };
  if (child.stderr) createInterface({ input: child.stderr }).on("line", push);
  return {
    push,
    describe: () => (tail.length > 0 ? `\n    | ${tail.join("\n    | ")}` : ""),
  };
}
