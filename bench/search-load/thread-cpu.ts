// CPU time of each thread of a process, from /proc (Linux): tells whether the service's event
// loop or its database thread is the one that is saturated.
import { readdirSync, readFileSync } from 'node:fs';

// USER_HZ is 100 on every Linux this runs on (`getconf CLK_TCK`).
const TICKS_PER_SECOND = 100;

/** Thread id → CPU seconds (user + system); empty where /proc cannot be read. */
export function threadCpuSeconds(pid: number): Map<number, number> {
  const byThread = new Map<number, number>();
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return byThread;
  }
  for (const tid of threads) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: fields start after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const seconds = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
      if (Number.isFinite(seconds)) byThread.set(Number(tid), seconds);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return byThread;
}

/** Cores' worth of CPU over a window: the main thread (tid = pid), the busiest other thread, all. */
export interface ThreadLoad {
  readonly mainCores: number;
  readonly busiestOtherCores: number;
  readonly totalCores: number;
}

/** Starts accounting the threads of `pid`; the function it answers closes the window. */
export function openThreadWindow(pid: number | undefined): () => ThreadLoad | undefined {
  if (pid === undefined) return () => undefined;
  const before = threadCpuSeconds(pid);
  const startedAt = performance.now();
  return () => {
    const after = threadCpuSeconds(pid);
    const seconds = (performance.now() - startedAt) / 1000;
    if (after.size === 0 || seconds <= 0) return undefined;
    let main = 0;
    let busiestOther = 0;
    let total = 0;
    for (const [tid, used] of after) {
      const delta = used - (before.get(tid) ?? 0);
      total += delta;
      if (tid === pid) main = delta;
      else busiestOther = Math.max(busiestOther, delta);
    }
    return {
      mainCores: main / seconds,
      busiestOtherCores: busiestOther / seconds,
      totalCores: total / seconds,
    };
  };
}
