import { mkdtempSync, readdirSync, rmSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Memory-backed storage of Linux systems: where an ephemeral datadir goes when it has room. */
const SHARED_MEMORY = "/dev/shm";

/**
 * Free bytes `/dev/shm` must have to take an ephemeral datadir: a container's is often 64 MB, which a
 * long test run's chain can outgrow (its writes would then fail), and the temp directory has room.
 */
export const EPHEMERAL_MIN_FREE_BYTES = 1024 ** 3;

/**
 * Where ephemeral datadirs go: memory-backed `shared` (`/dev/shm`) where the system has it with at
 * least `minFreeBytes` free, else the temp directory.
 */
export function ephemeralBase(shared = SHARED_MEMORY, minFreeBytes = EPHEMERAL_MIN_FREE_BYTES): string {
  return freeBytes(shared) >= minFreeBytes ? shared : tmpdir();
}

/** Bytes an unprivileged process may still write under `path`; -1 when there is no such path. */
function freeBytes(path: string): number {
  try {
    const stats = statfsSync(path);
    return stats.bavail * stats.bsize;
  } catch {
    return -1;
  }
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
