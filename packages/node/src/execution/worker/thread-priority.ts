import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";

/** The niceness execution threads run at: below the thread that answers requests and seals blocks. */
export const EXECUTION_THREAD_NICENESS = 10;

/**
 * Lowers the scheduling priority of the calling thread (Linux: a thread is its own scheduling
 * entity, named by its id under /proc/thread-self), so that when execution keeps every core busy
 * the main thread still gets one whenever it has work. Elsewhere this does nothing. True when the
 * priority was lowered.
 */
export function lowerThisThreadPriority(niceness = EXECUTION_THREAD_NICENESS): boolean {
  if (process.platform !== "linux") return false;
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, niceness);
    return true;
  } catch {
    // Not permitted or not available: the thread keeps its priority.
    return false;
  }
}
