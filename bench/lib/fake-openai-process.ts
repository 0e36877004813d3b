// The fake OpenAI-compatible embedding server in a process of its own, so that its work does not
// share an event loop with a benchmark's timed clients. Prints `ready <baseUrl>` once listening
// and closes on SIGTERM. Arguments: dimensions, delay per request (ms).
//
// `startFakeOpenAiProcess` (below) starts it from a benchmark.
import path from 'node:path';
import { type Child, deferCleanup, spawnChild } from './children.js';
import { ROOT } from './paths.js';
import { sleep } from './stats.js';

const SCRIPT = path.join(ROOT, 'bench/lib/fake-openai-process.ts');

export interface FakeOpenAiProcess {
  readonly baseUrl: string;
  readonly child: Child;
  stop(): Promise<void>;
}

/** Starts the fake embedding server in a child process and waits until it listens. */
export async function startFakeOpenAiProcess(dimensions: number, delayMs = 0): Promise<FakeOpenAiProcess> {
  const child = spawnChild(
    'fake OpenAI server',
    process.execPath,
    ['--import', 'tsx', SCRIPT, String(dimensions), String(delayMs)],
    { cwd: ROOT, env: { PATH: process.env.PATH ?? '' }, collectStdout: true },
  );
  const stop = deferCleanup(() => child.stop(5_000));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const match = /^ready (\S+)$/m.exec(child.stdout());
    if (match?.[1] !== undefined) return { baseUrl: match[1], child, stop };
    if (child.process.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the fake OpenAI server did not start:\n${child.output()}`);
    }
    await sleep(20);
  }
}

async function serve(): Promise<void> {
  const { FakeOpenAiServer } = await import('../../test/fakes/fake-openai-server.js');
  const [dimensions = '384', delay = '0'] = process.argv.slice(2);
  const server = await FakeOpenAiServer.start({
    dimensions: Number(dimensions),
    delayMsPerRequest: Number(delay),
  });
  // A long-running benchmark must not hold every request it saw.
  const trim = setInterval(() => server.clearRecords(), 10_000);
  process.stdout.write(`ready ${server.baseUrl}\n`);
  process.once('SIGTERM', () => {
    clearInterval(trim);
    void server.close().then(() => process.exit(0));
  });
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === SCRIPT) await serve();
