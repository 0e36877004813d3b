import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import path from 'node:path';
import { HANG_BOUND_MS } from './hang-bound.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A free loopback port, for a child service to listen on. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export interface ServiceProcess {
  readonly url: string;
  readonly child: ChildProcess;
  readonly output: () => string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Runs `src/main.ts` in its own process, as `npm start` does, and waits until it is ready. */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/main.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  const url = `http://127.0.0.1:${port}`;
  // Polled until ready or exited, however long a busy machine takes: only a hang meets the bound.
  const deadline = Date.now() + HANG_BOUND_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}:\n${output}`);
    try {
      const response = await fetch(`${url}/readyz`);
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not become ready:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    child,
    output: () => output,
    stop: (signal) => stopChild(child, signal),
  };
}

/**
 * A `--role=worker` process: it serves no HTTP, so it is ready once it logs that it started
 * (LOG_LEVEL is info at least, whatever `env` says).
 */
export async function startWorkerProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'src/main.ts'), '--role=worker'],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += String(chunk);
      if (output.includes('"service started"')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}:\n${output}`)));
  });
  return {
    url: '',
    child,
    output: () => output,
    stop: (signal) => stopChild(child, signal),
  };
}

/** Sends `signal` (SIGTERM by default) and resolves with the exit code. */
async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = once(child, 'exit');
  child.kill(signal);
  const [code] = (await exited) as [number | null];
  return code;
}

/** Runs the service expecting it to fail at start; answers its exit code and output. */
export async function runServiceExpectingFailure(
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/main.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}

/** Registers a user with a running service over HTTP (`slug` makes its e-mail and account id); answers its token. */
export async function registerOverHttp(baseUrl: string, slug: string): Promise<string> {
  const response = await fetch(`${baseUrl}/v2/users/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      type: 'oauth',
      provider: 'google',
      provider_account_id: `account-${slug}`,
      email: `${slug}@example.com`,
      name: slug,
    }),
  });
  if (response.status !== 201)
    throw new Error(`registration failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}
