// Runs autocannon in its own process (so it never shares an event loop with the server it
// measures): reads a LoadSpec as JSON on stdin, runs it for its durationSeconds (the caller runs the
// warm-up as a run of its own) and prints one LoadResult as JSON.
import { createRequire } from 'node:module';
import type { LoadResult, LoadSpec } from './load.js';

interface Histogram {
  readonly average: number;
  readonly mean: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

interface AutocannonResult {
  readonly latency: Histogram;
  readonly requests: Histogram;
  readonly duration: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly non2xx: number;
  readonly resets: number;
  readonly statusCodeStats: Record<string, { count: number }>;
  readonly '2xx': number;
}

interface AutocannonOptions {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
  readonly connections: number;
  readonly duration: number;
  readonly timeout: number;
}

const autocannon = createRequire(import.meta.url)('autocannon') as (
  options: AutocannonOptions,
) => Promise<AutocannonResult>;

function cpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}

async function main(): Promise<void> {
  const spec = JSON.parse(await readStdin()) as LoadSpec;
  const options = {
    url: spec.url,
    method: spec.method,
    headers: spec.headers,
    body: spec.body,
    connections: spec.connections,
    timeout: spec.timeoutSeconds,
  };
  const result = await autocannon({ ...options, duration: spec.durationSeconds });
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats)) statusCodes[code] = stats.count;
  const answer: LoadResult = {
    requestsPerSecond: result.requests.average,
    requestsPerSecondMedian: result.requests.p50,
    latencyMeanMs: result.latency.mean,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    latencyMaxMs: result.latency.max,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    durationSeconds: result.duration,
    warmup: undefined,
    // Its whole life, start-up included, so the caller can subtract it from the machine's busy time.
    loadGeneratorCpuSeconds: cpuSeconds(),
  };
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
