// Reading a benchmark's settings: a flag wins over its BENCH_* variable, which wins over the default.
import { parseArgs } from 'node:util';

export type FlagValues = Readonly<Record<string, string | boolean | undefined>>;

/** Parses `argv` against string flags and boolean flags; prints `usage` and exits on `--help`. */
export function parseFlags(
  argv: readonly string[],
  strings: readonly string[],
  booleans: readonly string[],
  usage: string,
): FlagValues {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
  };
  for (const name of strings) options[name] = { type: 'string' };
  for (const name of booleans) options[name] = { type: 'boolean' };
  let values: FlagValues;
  try {
    values = parseArgs({ args: [...argv], options, strict: true }).values;
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
  }
  if (values.help === true) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return values;
}

/** The boolean flags of a benchmark that runs the service: how it is run and whether it writes. */
export const SERVICE_RUN_FLAGS = ['no-build', 'from-source', 'no-write'] as const;

/**
 * The --help lines of SERVICE_RUN_FLAGS, their descriptions starting at `column` (where the
 * benchmark's other options' start).
 */
export function serviceRunUsage(column: number): string {
  return [
    ['--no-build', 'use the existing dist/ instead of running npm run build'],
    ['--from-source', 'run src/main.ts through tsx instead of the build (trial runs; figures not written)'],
    ['--no-write', 'print the figures without writing docs/benchmarks.md'],
  ]
    .map(([flag = '', description = '']) => `  ${flag.padEnd(column - 2)}${description}`)
    .join('\n');
}

/** Typed access to flags and BENCH_* variables, with ranges checked. */
export class Settings {
  constructor(
    private readonly values: FlagValues,
    private readonly env: NodeJS.ProcessEnv,
    private readonly usage: string,
  ) {}

  private raw(flag: string, variable: string): string | undefined {
    const value = this.values[flag];
    const raw = typeof value === 'string' ? value : this.env[variable];
    return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
  }

  number(flag: string, variable: string, fallback: number, min: number, max: number, whole = true): number {
    const raw = this.raw(flag, variable);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min || value > max || (whole && !Number.isInteger(value))) {
      throw new Error(
        `--${flag} / ${variable} must be a ${whole ? 'whole number' : 'number'} from ${min} to ${max} (got "${raw}")\n\n${this.usage}`,
      );
    }
    return value;
  }

  optionalNumber(flag: string, variable: string, min: number, max: number): number | undefined {
    return this.raw(flag, variable) === undefined ? undefined : this.number(flag, variable, 0, min, max);
  }

  numbers(flag: string, variable: string, fallback: readonly number[], min: number, max: number): number[] {
    const raw = this.raw(flag, variable);
    if (raw === undefined) return [...fallback];
    const items = raw.split(',').map((item) => item.trim());
    const parsed = items.map(Number);
    if (
      items.some((item) => item === '') ||
      parsed.some((value) => !Number.isFinite(value) || value < min || value > max)
    ) {
      throw new Error(
        `--${flag} / ${variable} must be numbers from ${min} to ${max}, comma-separated (got "${raw}")\n\n${this.usage}`,
      );
    }
    return [...new Set(parsed)];
  }

  list<T extends string>(flag: string, variable: string, fallback: readonly T[], allowed: readonly T[]): T[] {
    const raw = this.raw(flag, variable);
    if (raw === undefined) return [...fallback];
    const items = raw
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
    for (const item of items) {
      if (!(allowed as readonly string[]).includes(item)) {
        throw new Error(
          `--${flag} / ${variable}: unknown "${item}" (use ${allowed.join(', ')})\n\n${this.usage}`,
        );
      }
    }
    if (items.length === 0) throw new Error(`--${flag} / ${variable} names nothing\n\n${this.usage}`);
    return [...new Set(items)] as T[];
  }

  string(flag: string, variable: string, fallback: string): string {
    return this.raw(flag, variable) ?? fallback;
  }

  /**
   * `SERVICE_RUN_FLAGS` read: build unless `--no-build` or `--from-source` (which runs src/
   * through tsx), and write docs/benchmarks.md unless `--no-write`.
   */
  serviceRun(): { build: boolean; fromSource: boolean; write: boolean } {
    const fromSource = this.enabled('from-source', 'BENCH_FROM_SOURCE');
    return {
      build: this.values['no-build'] !== true && !fromSource,
      fromSource,
      write: this.values['no-write'] !== true,
    };
  }

  /** A boolean flag, or its variable set to 1/true. */
  enabled(flag: string, variable: string): boolean {
    if (this.values[flag] === true) return true;
    const raw = this.env[variable]?.trim().toLowerCase();
    return raw === '1' || raw === 'true' || raw === 'yes';
  }
}
