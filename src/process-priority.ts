import { readdirSync } from 'node:fs';
import os from 'node:os';

/** The highest niceness there is: the least CPU when others want it. */
export const MAX_NICENESS = 19;

/**
 * Lowers this process's CPU priority to `niceness` (1 to 19; higher gives way more), for background
 * work that should yield the CPU to request handling on the same machine. On Linux niceness belongs
 * to each thread and a new thread takes its creator's: every thread running now is changed (listed
 * in /proc/self/task), and those started later (parse threads, libuv's pool) inherit it. Elsewhere
 * it applies to the process. A thread already at that niceness or above is left alone: priority is
 * never raised (that needs privileges). Returns how many threads it changed.
 */
export function lowerProcessPriority(niceness: number): number {
  if (!Number.isInteger(niceness) || niceness < 1 || niceness > MAX_NICENESS) {
    throw new RangeError(`niceness must be an integer from 1 to ${MAX_NICENESS}, got ${niceness}`);
  }
  let changed = 0;
  for (const threadId of threadIds()) {
    try {
      if (os.getPriority(threadId) >= niceness) continue;
      os.setPriority(threadId, niceness);
      changed++;
    } catch (error) {
      // A thread may have ended since it was listed; any other failure is the caller's to hear.
      if ((error as { info?: { code?: unknown } }).info?.code !== 'ESRCH') throw error;
    }
  }
  return changed;
}

/** This process's threads on Linux; elsewhere 0, which getpriority and setpriority read as the process. */
function threadIds(): number[] {
  try {
    return readdirSync('/proc/self/task').map(Number);
  } catch {
    return [0];
  }
}
