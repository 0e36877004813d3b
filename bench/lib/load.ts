import path from 'node:path';
import { spawnChild } from './children.js';
import { ROOT } from './paths.js';

/** What one load-generator run sends. */
export interface LoadSpec {
  readonly url: string;
  readonly method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
  readonly connections: number;
  /** Seconds of load before the measured run, not counted. */
  readonly warmupSeconds: number;
  readonly durationSeconds: number;
  /** autocannon's per-request timeout; a request slower than this counts as a timeout. */
  readonly timeoutSeconds: number;
}

/** What the measured part (after the warm-up) of a run gave. */
export interface LoadResult {
  /** Mean of the per-second request counts. */
  readonly requestsPerSecond: number;
  /** Median of the per-second request counts. */
  readonly requestsPerSecondMedian: number;
  readonly latencyMeanMs: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly latencyMaxMs: number;
  readonly ok: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly statusCodes: Record<string, number>;
  readonly durationSeconds: number;
  readonly warmup: { ok: number; non2xx: number; errors: number; timeouts: number } | undefined;
  /** CPU time the autocannon process used (measured run only), start-up included. */
  readonly loadGeneratorCpuSeconds: number;
}

const WORKER = path.join(ROOT, 'bench/lib/load-worker.ts');

/** Called around the measured part of a run, after the warm-up (to sample CPU counters, say). */
export interface LoadHooks {
  readonly beforeMeasuring?: () => Promise<void> | void;
  /** Gets the measured run's result (without its warm-up figures). */
  readonly afterMeasuring?: (result: LoadResult) => Promise<void> | void;
}

/**
 * Runs autocannon in a child process of its own and answers its figures: first the warm-up (a
 * run of its own whose failures are reported), then the measured run.
 */
export async function runLoad(spec: LoadSpec, hooks: LoadHooks = {}): Promise<LoadResult> {
  let warmup: LoadResult['warmup'];
  if (spec.warmupSeconds > 0) {
    const result = await runOnce({ ...spec, durationSeconds: spec.warmupSeconds });
    warmup = { ok: result.ok, non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts };
  }
  await hooks.beforeMeasuring?.();
  const result = await runOnce(spec);
  await hooks.afterMeasuring?.(result);
  return { ...result, warmup };
}

async function runOnce(spec: LoadSpec): Promise<LoadResult> {
  const child = spawnChild('autocannon', process.execPath, ['--import', 'tsx', WORKER], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '' },
    input: JSON.stringify(spec),
    collectStdout: true,
  });
  const limitMs = (spec.durationSeconds + spec.timeoutSeconds + 30) * 1000;
  const timer = setTimeout(() => void child.stop(1_000), limitMs);
  const code = await child.exited.finally(() => clearTimeout(timer));
  const line = child.stdout().trim().split('\n').at(-1) ?? '';
  if (code !== 0 || line === '') {
    throw new Error(
      `autocannon child failed (exit ${code}) on ${spec.method} ${spec.url}:\n${child.output()}`,
    );
  }
  return JSON.parse(line) as LoadResult;
}
