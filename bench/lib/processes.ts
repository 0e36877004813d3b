import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import http from 'node:http';

/**
 * The processes of a service that runs several (node:cluster), from /proc (Linux only): its
 * workers, which of them serve connections, and any left running after it stopped.
 */

/** Whether /proc tells children and sockets apart (Linux). */
export function processTableAvailable(): boolean {
  return process.platform === 'linux' && existsSync('/proc/net/tcp');
}

/** The direct children of `pid`: /proc/PID/task/TID/children where the kernel has it, else a scan of /proc. */
export function childPids(pid: number): number[] {
  const fromTasks = childrenFromTasks(pid);
  if (fromTasks !== undefined) return fromTasks;
  const children: number[] = [];
  for (const entry of safeReaddir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat !== undefined && stat.ppid === pid && stat.state !== 'Z') children.push(Number(entry));
  }
  return children.sort((a, b) => a - b);
}

function childrenFromTasks(pid: number): number[] | undefined {
  const tasks = safeReaddir(`/proc/${pid}/task`);
  const children = new Set<number>();
  for (const task of tasks) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8');
    } catch {
      // No CONFIG_PROC_CHILDREN on this kernel (or the task ended): scan /proc instead.
      return undefined;
    }
    for (const child of text.trim().split(/\s+/)) if (child !== '') children.add(Number(child));
  }
  return tasks.length === 0 ? undefined : [...children].sort((a, b) => a - b);
}

function safeReaddir(directory: string): string[] {
  try {
    return readdirSync(directory);
  } catch {
    return [];
  }
}

function readStat(pid: number): { state: string; ppid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    const [state = '', ppid = ''] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state, ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

/** The inodes of the established TCP sockets whose local port is `port`. */
function establishedSocketInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const localPort = Number.parseInt(fields[1]?.split(':').at(-1) ?? '', 16);
      // State 01 is ESTABLISHED; field 9 is the inode.
      if (localPort === port && fields[3] === '01' && fields[9] !== undefined) inodes.add(fields[9]);
    }
  }
  return inodes;
}

function ownsAnyOf(pid: number, inodes: ReadonlySet<string>): boolean {
  for (const fd of safeReaddir(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode !== undefined && inodes.has(inode)) return true;
  }
  return false;
}

/**
 * Opens `connections` keep-alive connections to `url` at once, one request each, and answers which
 * of `pids` hold the server's end of one of them while they are still open.
 */
async function pidsServing(url: string, pids: readonly number[], connections: number): Promise<Set<number>> {
  const port = Number(new URL(url).port);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  try {
    await Promise.all(
      Array.from(
        { length: connections },
        () =>
          new Promise<void>((resolve, reject) => {
            const request = http.get(url, { agent, timeout: 5_000 }, (response) => {
              response.resume();
              response.on('end', resolve);
              response.on('error', reject);
            });
            request.on('timeout', () => request.destroy(new Error('timed out')));
            request.on('error', reject);
          }),
      ),
    );
    const inodes = establishedSocketInodes(port);
    return new Set(pids.filter((pid) => ownsAnyOf(pid, inodes)));
  } finally {
    agent.destroy();
  }
}

/**
 * Waits until the node:cluster primary `primaryPid` has `count` workers and each of them serves
 * connections on `url` (the service answers /readyz as soon as the first one listens). Answers
 * the workers' pids.
 */
export async function waitForWorkers(
  primaryPid: number,
  count: number,
  url: string,
  timeoutMs = 60_000,
): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let workers: number[] = [];
  let serving = new Set<number>();
  for (;;) {
    workers = childPids(primaryPid);
    if (workers.length >= count) {
      try {
        serving = await pidsServing(url, workers, count * 4);
      } catch {
        serving = new Set();
      }
      if (serving.size >= count) return workers;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `the service had ${workers.length} worker processes, ${serving.size} of them serving, within ${timeoutMs} ms; expected ${count}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Whether `pid` still runs (not a zombie) the script `script`. */
function runs(pid: number, script: string): boolean {
  const stat = readStat(pid);
  if (stat === undefined || stat.state === 'Z') return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(script);
  } catch {
    return false;
  }
}

/**
 * Kills (SIGKILL, by pid) those of `pids` that still run `script` once `graceMs` have passed;
 * answers the pids it had to kill. For workers that outlived their primary.
 */
export async function killLeftovers(
  pids: readonly number[],
  script: string,
  graceMs = 5_000,
): Promise<number[]> {
  const deadline = Date.now() + graceMs;
  let left = pids.filter((pid) => runs(pid, script));
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = left.filter((pid) => runs(pid, script));
  }
  for (const pid of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
  return left;
}
