import { readFileSync } from 'node:fs';

/**
 * CPU time (user + system) that processes have used, from /proc (Linux only), in seconds.
 * CPU per request is a figure that other load on a shared machine hardly moves, unlike req/s.
 */
export interface CpuSample {
  readonly byPid: ReadonlyMap<number, number>;
}

// USER_HZ is 100 on every Linux this runs on (`getconf CLK_TCK`).
const TICKS_PER_SECOND = 100;

export function cpuAccountingAvailable(): boolean {
  return process.platform === 'linux' && readCpuSeconds(process.pid) !== undefined;
}

function readCpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
    return (utime + stime) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

export function sampleCpu(pids: Iterable<number>): CpuSample {
  const byPid = new Map<number, number>();
  for (const pid of pids) {
    const seconds = readCpuSeconds(pid);
    if (seconds !== undefined) byPid.set(pid, seconds);
  }
  return { byPid };
}

/** CPU seconds used between two samples; a process that appeared in between counts from zero. */
export function cpuSecondsBetween(before: CpuSample, after: CpuSample): number {
  let total = 0;
  for (const [pid, seconds] of after.byPid) total += seconds - (before.byPid.get(pid) ?? 0);
  return total;
}

/** CPU seconds the whole machine has been busy (user, nice, system, irq, softirq), from /proc/stat. */
export function systemBusySeconds(): number | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const [label, user, nice, system, , , irq, softirq] = line.trim().split(/\s+/);
    if (label !== 'cpu') return undefined;
    const busy = [user, nice, system, irq, softirq].reduce((sum, value) => sum + Number(value ?? 0), 0);
    return Number.isFinite(busy) ? busy / TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}

/** CPU use over one measured window, per completed request. */
export interface CpuWindowResult {
  /** Microseconds of CPU per request in the server process(es). */
  readonly serverUs: number;
  /** CPU seconds each server process used over the window. */
  readonly serverSecondsByPid: ReadonlyMap<number, number>;
  /** Microseconds of CPU per request in the database processes (undefined when there are none to watch). */
  readonly databaseUs: number | undefined;
  /** Cores' worth of CPU that other processes on the machine used meanwhile. */
  readonly otherCores: number | undefined;
}

/**
 * Opens a window over which CPU time is accounted: call it when the measured load starts, and
 * the function it answers when the load has ended, with the load generator's own CPU seconds
 * (it runs in a process of its own) and the number of completed requests.
 */
export function openCpuWindow(
  serverPids: readonly number[],
  databasePids: readonly number[] | undefined,
): (loadGeneratorCpuSeconds: number, completed: number) => CpuWindowResult | undefined {
  const take = () => ({
    at: performance.now(),
    server: sampleCpu(serverPids),
    database: sampleCpu(databasePids ?? []),
    machine: systemBusySeconds(),
  });
  const before = take();
  const selfBefore = process.cpuUsage();
  return (loadGeneratorCpuSeconds, completed) => {
    const after = take();
    if (completed <= 0) return undefined;
    const self = process.cpuUsage(selfBefore);
    const server = cpuSecondsBetween(before.server, after.server);
    const database = cpuSecondsBetween(before.database, after.database);
    const ours = server + database + loadGeneratorCpuSeconds + (self.user + self.system) / 1e6;
    const wallSeconds = (after.at - before.at) / 1000;
    const serverSecondsByPid = new Map<number, number>();
    for (const [pid, seconds] of after.server.byPid) {
      serverSecondsByPid.set(pid, seconds - (before.server.byPid.get(pid) ?? 0));
    }
    return {
      serverUs: (server / completed) * 1e6,
      serverSecondsByPid,
      databaseUs: databasePids === undefined ? undefined : (database / completed) * 1e6,
      otherCores:
        before.machine === undefined || after.machine === undefined || wallSeconds <= 0
          ? undefined
          : Math.max(0, (after.machine - before.machine - ours) / wallSeconds),
    };
  };
}
