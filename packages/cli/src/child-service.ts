import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** The `strata` entry point, run as `node <bin> <command>` for services in their own process. */
const STRATA_BIN = fileURLToPath(new URL("../bin/strata.js", import.meta.url));

/** A `strata` command running as a child process. */
export interface ChildService {
  readonly process: ChildProcess;
  /** The URLs of its `ready <url>` lines, in order. */
  readonly urls: readonly string[];
  /** Resolves with the exit code (or signal name) when the child has exited. */
  readonly exited: Promise<number | string>;
  /** Asks it to stop (SIGTERM), then kills it if it has not exited after `graceMs`. */
  stop(graceMs: number): Promise<number | string>;
}

/** The child exited or failed before it printed all its `ready` lines. */
export class ChildStartError extends Error {}

/**
 * Starts `strata <args>` as a child process and waits until it has printed `readyLines` lines
 * `ready <url>`. Every other stdout line goes to `out`; stderr (its logs) passes through.
 */
export function startChildService(
  args: readonly string[],
  readyLines: number,
  out: (line: string) => void,
): Promise<ChildService> {
  const child = spawn(process.execPath, [STRATA_BIN, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<number | string>((resolve) => {
    child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown"));
  });
  const stop = async (graceMs: number) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    }
    return exited;
  };
  return new Promise((resolve, reject) => {
    const urls: string[] = [];
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      const ready = /^ready (\S+)$/.exec(line);
      if (ready === null || urls.length >= readyLines) {
        out(line);
        return;
      }
      urls.push(ready[1]!);
      if (urls.length === readyLines) resolve({ process: child, urls, exited, stop });
    });
    child.once("error", (error) => reject(new ChildStartError(`strata ${args[0]}: ${error.message}`)));
    exited.then((code) => {
      if (urls.length < readyLines)
        reject(new ChildStartError(`strata ${args[0]} exited (${code}) before it was ready`));
    });
  });
}
