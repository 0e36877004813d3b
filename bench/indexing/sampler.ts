import { readFileSync } from 'node:fs';
import pg from 'pg';
import { sampleCpu, systemBusySeconds } from '../lib/cpu.js';

/** Resident memory of a process, from /proc/PID/status (Linux), in bytes. */
export interface MemoryReading {
  /** VmRSS: resident now. */
  readonly rss: number;
  /** VmHWM: the most it has been resident since it started. */
  readonly peak: number;
}

export function readMemory(pid: number): MemoryReading | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const field = (name: string) => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status);
    return match?.[1] === undefined ? undefined : Number(match[1]) * 1024;
  };
  const rss = field('VmRSS');
  const peak = field('VmHWM');
  return rss === undefined || peak === undefined ? undefined : { rss, peak };
}

/** What the sampler saw between `start` and `stop`. */
export interface WindowUsage {
  readonly wallSeconds: number;
  /** CPU seconds (user + system) of the service's processes, parse threads included. */
  readonly serviceCpuSeconds: number;
  /** CPU seconds of each service process. */
  readonly serviceCpuByPid: ReadonlyMap<number, number>;
  /** CPU seconds of the PostgreSQL backends serving the benchmark's database (undefined on PGlite). */
  readonly databaseCpuSeconds: number | undefined;
  /** Cores' worth of CPU that processes other than the service, its backends and the benchmark used. */
  readonly otherCores: number | undefined;
  /** Resident memory of each service process at the start of the window. */
  readonly startRssByPid: ReadonlyMap<number, number>;
  /** VmHWM of each service process at the end of the window (its peak since it started). */
  readonly peakRssByPid: ReadonlyMap<number, number>;
  /** The most PostgreSQL backends seen at once on the database. */
  readonly peakBackends: number | undefined;
}

export interface SamplerTargets {
  /** The service's processes (fixed for the window). */
  readonly servicePids: readonly number[];
  /** The benchmark's own helper processes (the prober), counted as ours, not as other load. */
  readonly helperPids: () => readonly number[];
  /** PostgreSQL: the admin URL and the database whose backends to account. */
  readonly postgres?: { readonly adminUrl: string; readonly database: string };
}

/**
 * Samples, every `intervalMs`, the CPU time of the service's processes and of the PostgreSQL
 * backends on its database (whose pool grows and shrinks: a backend is counted from when it first
 * appears, and one that exits keeps what it had used at its last sample), and the service's
 * resident memory.
 */
export class ProcessSampler {
  private readonly firstCpu = new Map<number, number>();
  private readonly lastCpu = new Map<number, number>();
  private readonly backendFirstCpu = new Map<number, number>();
  private readonly backendLastCpu = new Map<number, number>();
  private readonly helperFirstCpu = new Map<number, number>();
  private readonly helperLastCpu = new Map<number, number>();
  private readonly startRss = new Map<number, number>();
  private backendPids: number[] = [];
  private peakBackends = 0;
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> = Promise.resolve();
  private startedAt = 0;
  private machineBefore: number | undefined;
  private selfBefore = process.cpuUsage();

  constructor(
    private readonly targets: SamplerTargets,
    private readonly intervalMs = 250,
  ) {}

  async start(): Promise<void> {
    const { postgres } = this.targets;
    if (postgres !== undefined) {
      this.client = new pg.Client({ connectionString: postgres.adminUrl, connectionTimeoutMillis: 10_000 });
      this.client.on('error', () => {});
      await this.client.connect();
      await this.refreshBackends();
    }
    for (const pid of this.targets.servicePids) {
      const memory = readMemory(pid);
      if (memory !== undefined) this.startRss.set(pid, memory.rss);
    }
    this.startedAt = performance.now();
    this.machineBefore = systemBusySeconds();
    this.selfBefore = process.cpuUsage();
    this.sample(true);
    this.timer = setInterval(() => {
      this.ticking = this.ticking.then(() => this.tick());
    }, this.intervalMs);
  }

  async stop(): Promise<WindowUsage> {
    clearInterval(this.timer);
    await this.ticking;
    await this.refreshBackends();
    this.sample(false);
    const wallSeconds = (performance.now() - this.startedAt) / 1000;
    const machineAfter = systemBusySeconds();
    const self = process.cpuUsage(this.selfBefore);
    await this.client?.end().catch(() => {});
    const used = (first: Map<number, number>, last: Map<number, number>) => {
      const byPid = new Map<number, number>();
      for (const [pid, seconds] of last) byPid.set(pid, seconds - (first.get(pid) ?? 0));
      return byPid;
    };
    const sum = (byPid: ReadonlyMap<number, number>) => [...byPid.values()].reduce((a, b) => a + b, 0);
    const serviceCpuByPid = used(this.firstCpu, this.lastCpu);
    const serviceCpuSeconds = sum(serviceCpuByPid);
    const databaseCpuSeconds =
      this.targets.postgres === undefined ? undefined : sum(used(this.backendFirstCpu, this.backendLastCpu));
    const helpers = sum(used(this.helperFirstCpu, this.helperLastCpu));
    const ours = serviceCpuSeconds + (databaseCpuSeconds ?? 0) + helpers + (self.user + self.system) / 1e6;
    const peakRssByPid = new Map<number, number>();
    for (const pid of this.targets.servicePids) {
      const memory = readMemory(pid);
      if (memory !== undefined) peakRssByPid.set(pid, memory.peak);
    }
    return {
      wallSeconds,
      serviceCpuSeconds,
      serviceCpuByPid,
      databaseCpuSeconds,
      otherCores:
        this.machineBefore === undefined || machineAfter === undefined || wallSeconds <= 0
          ? undefined
          : Math.max(0, (machineAfter - this.machineBefore - ours) / wallSeconds),
      startRssByPid: this.startRss,
      peakRssByPid,
      peakBackends: this.targets.postgres === undefined ? undefined : this.peakBackends,
    };
  }

  private async tick(): Promise<void> {
    await this.refreshBackends();
    this.sample(false);
  }

  private async refreshBackends(): Promise<void> {
    const { postgres } = this.targets;
    if (postgres === undefined || this.client === undefined) return;
    try {
      const result = await this.client.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [postgres.database],
      );
      this.backendPids = result.rows.map((row) => Number(row.pid));
      this.peakBackends = Math.max(this.peakBackends, this.backendPids.length);
    } catch {
      // Keep the last list: a missed refresh only delays noticing a new backend.
    }
  }

  private sample(first: boolean): void {
    const record = (pids: readonly number[], firsts: Map<number, number>, lasts: Map<number, number>) => {
      for (const [pid, seconds] of sampleCpu(pids).byPid) {
        // A process first seen after the start counts from zero: all its CPU falls in the window.
        if (first) firsts.set(pid, seconds);
        lasts.set(pid, seconds);
      }
    };
    record(this.targets.servicePids, this.firstCpu, this.lastCpu);
    record(this.backendPids, this.backendFirstCpu, this.backendLastCpu);
    record(this.targets.helperPids(), this.helperFirstCpu, this.helperLastCpu);
  }
}
