import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort, registerOverHttp } from '../helpers/service-process.js';
import { testDatabaseKind } from '../helpers/test-database.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const COMPILED_MAIN = path.join(ROOT, 'dist/src/main.js');

interface ProcessIdentity {
  readonly pid: number;
  /** Start time in clock ticks since boot: tells a process from a later one given the same pid. */
  readonly startTime: string;
  readonly command: string;
}

/** Every live process's parent and start time, from /proc. */
function processTable(): Map<number, { ppid: number; startTime: string; command: string }> {
  const table = new Map<number, { ppid: number; startTime: string; command: string }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      table.set(Number(entry), { ppid: Number(fields[1]), startTime: fields[19] ?? '', command });
    } catch {
      // Gone while we looked.
    }
  }
  return table;
}

/** The process and all its descendants, as they are now. */
function processTree(root: number): ProcessIdentity[] {
  const table = processTable();
  const tree: ProcessIdentity[] = [];
  const pending = [root];
  while (pending.length > 0) {
    const pid = pending.pop() as number;
    const entry = table.get(pid);
    if (entry !== undefined) tree.push({ pid, startTime: entry.startTime, command: entry.command });
    for (const [child, { ppid }] of table) if (ppid === pid) pending.push(child);
  }
  return tree;
}

/** Those of `processes` still alive (the same process, not a new one that took its pid). */
function survivors(processes: readonly ProcessIdentity[]): ProcessIdentity[] {
  const table = processTable();
  return processes.filter((entry) => table.get(entry.pid)?.startTime === entry.startTime);
}

interface NpmStart {
  readonly child: ChildProcess;
  readonly url: string;
  readonly output: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const started: NpmStart[] = [];

/** `npm start` in the project, as a user (or a supervisor) runs it; resolves once it answers. */
async function npmStart(): Promise<NpmStart> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'npm-start-'));
  let output = '';
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? tmpdir(),
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
    },
    // Its own process group, so that a failed test can clean up the whole tree.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  const exited = once(child, 'exit').then(([code, signal]) => {
    rmSync(dataDir, { recursive: true, force: true });
    return { code: code as number | null, signal: signal as NodeJS.Signals | null };
  });
  const service: NpmStart = { child, url: `http://127.0.0.1:${port}`, output: () => output, exited };
  started.push(service);
  // However long the build and the start take on a busy machine: the test's timeout bounds a hang.
  await outputMatching(child, service.output, /"service started"/);
  expect((await fetch(`${service.url}/readyz`)).ok).toBe(true);
  return service;
}

/**
 * Resolves with the match once `output()` (what `child` has printed so far, gathered by listeners
 * added before this one) matches `pattern`; rejects, with the output, if the child exits first.
 */
function outputMatching(
  child: ChildProcess,
  output: () => string,
  pattern: RegExp,
): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = output().match(pattern);
      if (match === null) return false;
      stopListening();
      resolve(match);
      return true;
    };
    // 'close', not 'exit': what it printed last may still be on its way when it exits.
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      if (check()) return;
      stopListening();
      reject(new Error(`exited (${code ?? signal}) before printing ${pattern}:\n${output()}`));
    };
    const stopListening = () => {
      child.stdout?.off('data', check);
      child.stderr?.off('data', check);
      child.off('close', onExit);
    };
    if (check()) return;
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.on('close', onExit);
  });
}

/**
 * `npm run build` in `folder`, to its end. Not spawnSync: a build takes minutes on a busy machine,
 * and a process blocked that long misses vitest's messages, whose calls then time out.
 */
async function npmRunBuild(folder: string): Promise<{ status: number | null; output: string }> {
  const child = spawn('npm', ['run', 'build', '--silent'], {
    cwd: folder,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  const [status] = (await once(child, 'close')) as [number | null];
  return { status, output };
}

/** Whether something accepts connections at `url`. */
async function listening(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/healthz`, { headers: { connection: 'close' } });
    return true;
  } catch {
    return false;
  }
}

/**
 * A PUT whose body is half sent; `finish()` sends the rest, `status` is the answer's status.
 * `sent` resolves once the server has taken the request up (its 100 Continue, sent when the
 * headers are routed), not merely once the bytes left this side: a signal sent before that would
 * find a request the server had not begun, which it may refuse with 503 while stopping.
 */
function halfSentRequest(url: string, token: string) {
  const body = JSON.stringify({
    chat_id: 'in-flight',
    messages: [{ role: 'user', content: 'still there?' }],
  });
  const request = http.request(`${url}/v1/chats/in-flight`, {
    method: 'PUT',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${token}`,
      'content-length': String(Buffer.byteLength(body)),
      expect: '100-continue',
    },
  });
  const status = new Promise<number>((resolve, reject) => {
    request.on('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
  });
  const sent = new Promise<void>((resolve) => {
    request.on('continue', () => request.write(body.slice(0, 10), () => resolve()));
    request.flushHeaders();
  });
  return { sent, status, finish: () => request.end(body.slice(10)) };
}

/**
 * How long a stop may take to be seen before the test gives up: an outer bound for a hang only,
 * however busy the machine (the service's own shutdown timeout is what the exit code checks).
 */
const STOP_BOUND_MS = 300_000;

// Neither depends on the database, so they run once, in the PGlite pass (the PostgreSQL pass would
// also build the same dist/ at the same time). Processes are found in /proc: Linux only.
const oncePerRun = testDatabaseKind() === 'postgres';

describe.skipIf(oncePerRun || !existsSync('/proc/self/stat'))('npm start', () => {
  beforeAll(async () => {
    // The first build compiles everything (minutes on a busy machine); every `npm start` below then
    // finds it up to date.
    const build = await npmRunBuild(ROOT);
    expect(build.status, build.output).toBe(0);
  }, 1_800_000);

  afterEach(() => {
    // Whatever a failed test left behind: npm started in its own process group.
    for (const service of started.splice(0)) {
      try {
        process.kill(-(service.child.pid as number), 'SIGKILL');
      } catch {
        // Nothing left.
      }
    }
  });

  it('says that the server and the web app are up to date, and how long migrating the database took', async () => {
    const service = await npmStart();
    const output = service.output();
    expect(output).toContain('the server is up to date');
    expect(output).toContain('the web app is up to date');
    // The service's own JSON lines: that it migrates, then the time it took, before it says it started.
    const migrated = output.search(/"msg":"migrating the database… done in \d+ ms"/);
    expect(output.indexOf('"msg":"migrating the database…"')).toBeGreaterThanOrEqual(0);
    expect(migrated).toBeGreaterThan(output.indexOf('"msg":"migrating the database…"'));
    expect(output.indexOf('"service started"')).toBeGreaterThan(migrated);
  }, 900_000);

  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s to the npm process: in-flight requests are answered, npm exits 0 (within the shutdown timeout) and nothing is left running',
    async (signal) => {
      const builtAt = statSync(COMPILED_MAIN).mtimeMs;
      const service = await npmStart();
      // A restart with unchanged sources compiles nothing.
      expect(statSync(COMPILED_MAIN).mtimeMs).toBe(builtAt);

      const token = await registerOverHttp(service.url, `npm-${signal.toLowerCase()}`);
      const tree = processTree(service.child.pid as number);
      expect(tree.some((entry) => entry.command.includes('dist/src/main.js'))).toBe(true);

      const inFlight = halfSentRequest(service.url, token);
      await inFlight.sent;
      process.kill(service.child.pid as number, signal);
      // The service stops taking connections, yet the request it was reading is still answered.
      await expect.poll(() => listening(service.url), { timeout: STOP_BOUND_MS, interval: 50 }).toBe(false);
      inFlight.finish();
      expect(await inFlight.status).toBe(201);

      // Exit 0 and "stopped cleanly" are the service's word that it stopped within its
      // SHUTDOWN_TIMEOUT_MS (10 s): past it, it logs that the shutdown timed out and exits 1.
      const exit = await service.exited;
      expect(exit, service.output().slice(-3000)).toEqual({ code: 0, signal: null });
      expect(service.output()).toContain('stopped cleanly');
      expect(survivors(tree)).toEqual([]);
    },
    900_000,
  );

  it('stops the service when npm itself is killed outright', async () => {
    const service = await npmStart();
    const tree = processTree(service.child.pid as number);
    process.kill(service.child.pid as number, 'SIGKILL');
    await service.exited;
    await expect
      .poll(() => survivors(tree), {
        timeout: STOP_BOUND_MS,
        interval: 100,
        message: service.output().slice(-3000),
      })
      .toEqual([]);
    expect(service.output()).toContain('"reason":"parent exited"');
    expect(service.output()).toContain('stopped cleanly');
    expect(await listening(service.url)).toBe(false);
  }, 900_000);
});

/**
 * A throwaway project with the real build script and configuration, and a couple of small sources;
 * with `webApp`, a one-page web app for Vite to build too.
 */
function smallProject({ webApp = false } = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'build-'));
  for (const file of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs']) {
    cpSync(path.join(ROOT, file), path.join(dir, file));
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  mkdirSync(path.join(dir, 'src/db/migrations'), { recursive: true });
  writeFileSync(path.join(dir, 'src/db/migrations/0000_first.sql'), 'CREATE TABLE t (id int);\n');
  writeFileSync(path.join(dir, 'src/greeting.ts'), "export const greeting = 'hello';\n");
  writeFileSync(
    path.join(dir, 'src/main.ts'),
    "import { greeting } from './greeting.js';\n\nconsole.log(greeting);\n",
  );
  writeFileSync(path.join(dir, 'src/main.test.ts'), "import './main.js';\n");
  if (webApp) {
    mkdirSync(path.join(dir, 'web'));
    writeFileSync(
      path.join(dir, 'web/vite.config.ts'),
      [
        "import { fileURLToPath } from 'node:url';",
        "import { defineConfig } from 'vite';",
        '',
        'export default defineConfig({',
        "  root: fileURLToPath(new URL('.', import.meta.url)),",
        "  build: { outDir: '../dist/web', emptyOutDir: true },",
        '});',
        '',
      ].join('\n'),
    );
    writeFileSync(
      path.join(dir, 'web/index.html'),
      '<!doctype html>\n<title>Small</title>\n<script type="module">document.title = "Built";</script>\n',
    );
  }
  return dir;
}

describe.skipIf(oncePerRun)('the first npm start', () => {
  let project: string;

  beforeAll(() => {
    project = smallProject({ webApp: true });
  });
  afterAll(() => {
    rmSync(project, { recursive: true, force: true });
  });

  /** `npm start` in the small project: it builds, then its main prints "hello" and exits. */
  const npmStartIn = (folder: string) => {
    const child = spawn('npm', ['start'], {
      cwd: folder,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += String(chunk);
    });
    child.stderr?.on('data', (chunk) => {
      output += String(chunk);
    });
    const closed = once(child, 'close');
    return { child, output: () => output, closed };
  };

  it('says what it builds while it builds, and how long each step took', async () => {
    const first = npmStartIn(project);
    // Each step is named as it starts, before it is done: the first start does not look hung.
    await outputMatching(first.child, first.output, /building the server… /);
    const server = await outputMatching(
      first.child,
      first.output,
      /building the server… done in (\d+\.\d) s\n/,
    );
    const web = await outputMatching(
      first.child,
      first.output,
      /building the web app… done in (\d+\.\d) s\n/,
    );
    await outputMatching(first.child, first.output, /^hello$/m);
    expect(await first.closed).toEqual([0, null]);
    for (const step of [server, web]) expect(Number(step[1])).toBeGreaterThan(0);
    expect(first.output().indexOf('building the web app…')).toBeGreaterThan(
      first.output().indexOf('building the server… done'),
    );

    // Started again with nothing changed, it says so and builds nothing.
    const again = npmStartIn(project);
    await outputMatching(again.child, again.output, /^hello$/m);
    expect(await again.closed).toEqual([0, null]);
    expect(again.output()).toMatch(/^the server is up to date$/m);
    expect(again.output()).toMatch(/^the web app is up to date$/m);
    expect(again.output()).not.toContain('building');
  }, 900_000);
});

describe.skipIf(oncePerRun)('npm run build', () => {
  let project: string;
  const build = () => npmRunBuild(project);
  const compiled = (file: string) => path.join(project, 'dist/src', file);
  const run = () => spawnSync(process.execPath, [compiled('main.js')], { encoding: 'utf8' }).stdout;

  beforeAll(() => {
    project = smallProject();
  });
  afterAll(() => {
    rmSync(project, { recursive: true, force: true });
  });

  it('compiles only when something changed, and always leaves a complete dist/', async () => {
    expect((await build()).status).toBe(0);
    expect(run()).toBe('hello\n');
    expect(existsSync(path.join(project, 'dist/src/db/migrations/0000_first.sql'))).toBe(true);
    expect(existsSync(compiled('main.test.js'))).toBe(false);

    // Unchanged sources: nothing is written again.
    const writtenAt = statSync(compiled('main.js')).mtimeMs;
    expect((await build()).status).toBe(0);
    expect(statSync(compiled('main.js')).mtimeMs).toBe(writtenAt);

    // A changed source is compiled again.
    writeFileSync(path.join(project, 'src/greeting.ts'), "export const greeting = 'hello again';\n");
    expect((await build()).status).toBe(0);
    expect(run()).toBe('hello again\n');

    // A compiled file removed by hand, or the whole dist/, is compiled again.
    rmSync(compiled('greeting.js'));
    expect((await build()).status).toBe(0);
    expect(run()).toBe('hello again\n');
    rmSync(path.join(project, 'dist'), { recursive: true });
    expect((await build()).status).toBe(0);
    expect(run()).toBe('hello again\n');
    expect(existsSync(path.join(project, 'dist/src/db/migrations/0000_first.sql'))).toBe(true);
  }, 900_000);

  it('fails with the type error, and keeps failing until it is fixed', async () => {
    writeFileSync(path.join(project, 'src/greeting.ts'), 'export const greeting: number = "not a number";\n');
    const broken = await build();
    expect(broken.status).not.toBe(0);
    expect(broken.output).toContain("Type 'string' is not assignable to type 'number'");
    expect((await build()).status).not.toBe(0);
    writeFileSync(path.join(project, 'src/greeting.ts'), "export const greeting = 'fixed';\n");
    expect((await build()).status).toBe(0);
    expect(run()).toBe('fixed\n');
  }, 900_000);
});
