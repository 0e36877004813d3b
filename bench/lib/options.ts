import { parseArgs } from 'node:util';

/** Settings every load benchmark shares; flags win over BENCH_* variables, which win over defaults. */
export interface LoadSettings {
  readonly connections: number;
  readonly warmupSeconds: number;
  readonly durationSeconds: number;
  readonly timeoutSeconds: number;
  /** Skip `npm run build` (use the dist/ already there). */
  readonly build: boolean;
  /** Where to write a --cpu-prof profile of each service process, if anywhere. */
  readonly cpuProfileDir: string | undefined;
  /** Which databases to run on. */
  readonly databases: readonly ('pglite' | 'postgres')[];
  /** API processes (`API_PROCESSES`) of the extra PostgreSQL variant; 1 runs no extra variant. */
  readonly apiProcesses: number;
  /** Write docs/benchmarks.md (off for trial runs). */
  readonly write: boolean;
}

const USAGE = `Options (or the BENCH_* variable in brackets):
  --connections N   concurrent connections (BENCH_CONNECTIONS, default 50)
  --warmup S        warm-up seconds per scenario, not measured (BENCH_WARMUP, default 3)
  --duration S      measured seconds per scenario (BENCH_DURATION, default 10)
  --timeout S       per-request timeout (BENCH_TIMEOUT, default 10)
  --databases LIST  pglite,postgres (BENCH_DATABASES, default both)
  --api-processes N also run PostgreSQL with API_PROCESSES=N (BENCH_API_PROCESSES, default 2; 1: no)
  --cpu-prof DIR    write a V8 CPU profile of each service process into DIR (BENCH_CPU_PROF)
  --no-build        use the existing dist/ instead of running npm run build
  --no-write        print the figures without writing docs/benchmarks.md
  PostgreSQL: BENCH_DATABASE_URL (default postgres://postgres:postgres@127.0.0.1:5432/rag_test)`;

export function parseLoadSettings(argv: readonly string[], env: NodeJS.ProcessEnv): LoadSettings {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      connections: { type: 'string' },
      warmup: { type: 'string' },
      duration: { type: 'string' },
      timeout: { type: 'string' },
      databases: { type: 'string' },
      'api-processes': { type: 'string' },
      'cpu-prof': { type: 'string' },
      'no-build': { type: 'boolean' },
      'no-write': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const number = (flag: string | undefined, variable: string, fallback: number, min: number, max: number) => {
    const raw = flag ?? env[variable];
    if (raw === undefined || raw.trim() === '') return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min || value > max) {
      throw new Error(`${variable} / flag must be a number from ${min} to ${max} (got "${raw}")\n${USAGE}`);
    }
    return value;
  };
  const databases = (values.databases ?? env.BENCH_DATABASES ?? 'pglite,postgres')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  for (const database of databases) {
    if (database !== 'pglite' && database !== 'postgres') {
      throw new Error(`unknown database "${database}": use pglite and/or postgres\n${USAGE}`);
    }
  }
  const cpuProfileDir = values['cpu-prof'] ?? env.BENCH_CPU_PROF;
  return {
    connections: Math.round(number(values.connections, 'BENCH_CONNECTIONS', 50, 1, 10_000)),
    warmupSeconds: number(values.warmup, 'BENCH_WARMUP', 3, 0, 600),
    durationSeconds: number(values.duration, 'BENCH_DURATION', 10, 1, 600),
    timeoutSeconds: number(values.timeout, 'BENCH_TIMEOUT', 10, 1, 600),
    build: values['no-build'] !== true,
    cpuProfileDir: cpuProfileDir === undefined || cpuProfileDir === '' ? undefined : cpuProfileDir,
    databases: databases as ('pglite' | 'postgres')[],
    apiProcesses: Math.round(number(values['api-processes'], 'BENCH_API_PROCESSES', 2, 1, 64)),
    write: values['no-write'] !== true,
  };
}
