/**
 * `strata testnet` started by the bench: four validator processes on consecutive ports of the bench
 * range, each node's URL, validator and process id parsed from its output; stopped by PID.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { allocatePortBlock, REPO_ROOT, STRATA_CLI } from "../targets.js";

const READY_TIMEOUT_MS = 180_000;

/** One node of the bench's testnet. */
export interface TestnetNode {
  readonly name: string;
  /** The validator address it seals for (lowercase). */
  readonly validator: string;
  readonly url: string;
  readonly wsUrl: string;
  readonly pid: number;
}

/** A running `strata testnet`. */
export interface BenchTestnet {
  readonly nodes: readonly TestnetNode[];
  readonly command: string;
  stop(): Promise<void>;
}

/** Every testnet process still running (the parent and its nodes), killed by PID if the bench exits early. */
const running = new Set<number>();
process.on("exit", () => {
  for (const pid of running) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Starts `strata testnet --validators N --block-time S` and resolves once every node serves. */
export async function startTestnet(validators: number, blockTimeSeconds: number): Promise<BenchTestnet> {
  const basePort = await allocatePortBlock(2 * validators);
  const datadir = await mkdtemp(join(tmpdir(), "strata-bench-testnet-"));
  const args = [
    STRATA_CLI,
    "testnet",
    "--validators",
    String(validators),
    "--block-time",
    String(blockTimeSeconds),
    "--base-port",
    String(basePort),
    "--datadir",
    datadir,
    "--fresh",
    "--log-level",
    "warn",
  ];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child.pid!);
  const tail: string[] = [];
  createInterface({ input: child.stderr! }).on("line", (line) => tail.push(line) > 20 && tail.shift());
  const nodes: TestnetNode[] = [];
  let ready = 0;
  const stop = async () => {
    const pids = [child.pid!, ...nodes.map((n) => n.pid)];
    if (alive(child.pid!)) process.kill(child.pid!, "SIGTERM");
    const deadline = Date.now() + 15_000;
    while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    for (const pid of pids) {
      if (alive(pid)) process.kill(pid, "SIGKILL");
      running.delete(pid);
    }
    await rm(datadir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("testnet not ready in time")), READY_TIMEOUT_MS);
      child.once("exit", (code) => reject(new Error(`testnet exited (code ${code}): ${tail.join(" | ")}`)));
      createInterface({ input: child.stdout! }).on("line", (line) => {
        const header = /^(node-\d+) · validator (0x[0-9a-fA-F]{40}) · pid (\d+) · (\S+)$/.exec(line);
        if (header) {
          const pid = Number(header[3]);
          running.add(pid);
          nodes.push({
            name: header[1]!,
            validator: header[2]!.toLowerCase(),
            pid,
            url: header[4]!,
            wsUrl: header[4]!.replace(/^http/, "ws"),
          });
        }
        if (line.startsWith("ready ") && ++ready === validators) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { nodes, command: `node ${args.join(" ")}`, stop };
}
