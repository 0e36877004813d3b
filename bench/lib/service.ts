import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import {
  MEMORY_INDEX_LOADED,
  MEMORY_INDEX_REFUSED,
} from '../../src/retrieval/lexical-index/team-lexical-indexes.js';
import { type Child, onCleanup, spawnChild } from './children.js';
import { freePort, waitUntilReady } from './http.js';
import { ROOT } from './paths.js';

/** The compiled entry point, as `npm start` runs it. */
export const SERVICE_ENTRY = path.join(ROOT, 'dist/src/main.js');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** `npm run build`: the service is measured as users run it, compiled, not through tsx. */
export async function buildService(): Promise<void> {
  const child = spawnChild('npm run build', NPM, ['run', 'build', '--silent'], {
    cwd: ROOT,
    env: { ...stringEnv(process.env) },
  });
  const code = await child.exited;
  if (code !== 0) throw new Error(`npm run build failed (exit ${code}):\n${child.output()}`);
  if (!existsSync(SERVICE_ENTRY)) throw new Error(`npm run build did not produce ${SERVICE_ENTRY}`);
}

export interface RunningServer {
  readonly url: string;
  readonly child: Child;
  /** Stops the process (SIGTERM, so it shuts down cleanly and writes a --cpu-prof profile). */
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly name: string;
  /** Node arguments before the script, e.g. `--cpu-prof`. */
  readonly nodeArgs?: readonly string[];
  readonly script: string;
  readonly env: Readonly<Record<string, string>>;
  /** Path polled until it answers 2xx. */
  readonly readyPath: string;
  readonly readyTimeoutMs?: number;
}

/** Starts a node server on a free loopback port in a child process and waits until it is ready. */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const port = await freePort();
  const child = spawnChild(options.name, process.execPath, [...(options.nodeArgs ?? []), options.script], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      // A benchmark registers every team it measures from 127.0.0.1, as no real client would.
      REGISTRATIONS_PER_HOUR_PER_ADDRESS: '0',
      ...options.env,
    },
  });
  const unregister = onCleanup(() => child.stop());
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(`${url}${options.readyPath}`, child, options.readyTimeoutMs);
  } catch (error) {
    unregister();
    await child.stop(2_000);
    throw error;
  }
  return {
    url,
    child,
    stop: async () => {
      unregister();
      await child.stop();
    },
  };
}

/** The TypeScript entry point, run through tsx when a benchmark is asked to skip the build. */
export const SERVICE_SOURCE_ENTRY = path.join(ROOT, 'src/main.ts');

/**
 * The service from `dist/src/main.js` with the given settings (DATA_DIR or DATABASE_URL…), or,
 * with `fromSource`, from `src/main.ts` through tsx (for trial runs while the tree does not build).
 */
export function startService(
  name: string,
  env: Readonly<Record<string, string>>,
  nodeArgs: readonly string[] = [],
  fromSource = false,
): Promise<RunningServer> {
  return startServer({
    name,
    script: fromSource ? SERVICE_SOURCE_ENTRY : SERVICE_ENTRY,
    env,
    nodeArgs: fromSource ? ['--import', 'tsx', ...nodeArgs] : nodeArgs,
    readyPath: '/readyz',
  });
}

/** The bare fastify baseline (one `GET /` JSON route). */
export function startBaseline(): Promise<RunningServer> {
  return startServer({
    name: 'baseline fastify',
    nodeArgs: ['--import', 'tsx'],
    script: path.join(ROOT, 'bench/lib/baseline-server.ts'),
    env: {},
    readyPath: '/',
  });
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) result[key] = value;
  return result;
}

/**
 * Resolves when the service logs a JSON line that `matches` (the service must run with
 * `LOG_LEVEL` low enough to log it); rejects if it exits first.
 */
export function waitForLogRecord(
  server: RunningServer,
  matches: (record: Record<string, unknown>) => boolean,
): Promise<void> {
  const stdout = server.child.process.stdout;
  if (stdout === null) return Promise.reject(new Error(`${server.child.name}: its output is not read`));
  return new Promise<void>((resolve, reject) => {
    let pending = '';
    const onData = (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        try {
          if (matches(JSON.parse(line) as Record<string, unknown>)) {
            finish();
            resolve();
            return;
          }
        } catch {
          // Not a log record.
        }
      }
    };
    const onExit = () => {
      finish();
      reject(new Error(`${server.child.name} exited before logging what was awaited`));
    };
    const finish = () => {
      stdout.off('data', onData);
      server.child.process.off('exit', onExit);
    };
    stdout.on('data', onData);
    server.child.process.once('exit', onExit);
  });
}

/**
 * Searches once, so the team's postings start loading into the service's memory
 * (retrieval/lexical-index), and resolves once the service says they are loaded.
 */
export async function postingsInMemory(
  server: RunningServer,
  teamId: number,
  search: () => Promise<unknown>,
): Promise<void> {
  let refused = false;
  const loaded = waitForLogRecord(server, (record) => {
    if (record.team !== teamId) return false;
    refused = record.msg === MEMORY_INDEX_REFUSED;
    return refused || record.msg === MEMORY_INDEX_LOADED;
  });
  await search();
  await loaded;
  if (refused) throw new Error(`team ${teamId}: its postings do not fit in SEARCH_MEMORY_INDEX_MB`);
}

/**
 * Node arguments that make a service write V8 CPU profiles into `directory` (made if missing), or
 * none without one. Node's own file names (pid and thread id in them): every thread writes its own.
 */
export function cpuProfileArgs(directory: string | undefined): string[] {
  if (directory === undefined) return [];
  mkdirSync(directory, { recursive: true });
  return ['--cpu-prof', `--cpu-prof-dir=${directory}`];
}
