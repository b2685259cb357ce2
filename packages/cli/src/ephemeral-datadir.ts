import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Where ephemeral datadirs go: memory-backed `/dev/shm` where the system has it, else the temp directory. */
export function ephemeralBase(): string {
  return existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
}

/** Names of ephemeral datadirs: the prefix, the owning process id, a dash and a random suffix. */
const PREFIX = "strata-ephemeral-";

/** A datadir that lives as long as the node process that made it. */
export interface EphemeralDatadir {
  readonly path: string;
  /** Deletes the directory and everything in it. */
  remove(): void;
}

/**
 * Makes a new, empty datadir under `base` for one run of a node (`strata node --ephemeral`), named
 * after this process. First deletes the ephemeral datadirs there whose process is gone (a node that
 * was killed could not delete its own).
 */
export function createEphemeralDatadir(base = ephemeralBase()): EphemeralDatadir {
  removeOrphans(base);
  const path = mkdtempSync(join(base, `${PREFIX}${process.pid}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

function removeOrphans(base: string): void {
  for (const name of readdirSync(base)) {
    if (!name.startsWith(PREFIX)) continue;
    const pid = Number(name.slice(PREFIX.length).split("-")[0]);
    if (Number.isInteger(pid) && pid > 0 && !isAlive(pid))
      rmSync(join(base, name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
