// Diagnostic preload for the service process (`--statements DIR`): counts the SQL statements the
// process sends and the time each kind takes, measures how late its event loop runs, and writes
// both to DIR/statements-PID.json at exit.
//
//   node --import tsx --import ./bench/indexing/statements-hook.ts dist/src/main.js
//
// PostgreSQL: every `pg.Client#query`, timed from the call to its answer (time queued behind the
// client's earlier queries included). PGlite: every protocol message goes through
// `execProtocolStream`; a Parse or simple Query message starts a statement, and the time of every
// message up to the next one is the statement's (its time inside PostgreSQL on the main thread).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

interface Tally {
  count: number;
  totalMs: number;
  maxMs: number;
}

export interface StatementReport {
  readonly pid: number;
  readonly argv: readonly string[];
  readonly statements: readonly {
    readonly sql: string;
    readonly count: number;
    readonly totalMs: number;
    /** The longest single call. */
    readonly maxMs: number;
  }[];
  /** How late a 10 ms timer ran on the main thread (perf_hooks.monitorEventLoopDelay), over the process's life. */
  readonly eventLoopDelayMs: { readonly p50: number; readonly p99: number; readonly max: number };
}

const output = process.env.BENCH_STATEMENTS_OUT;
const tallies = new Map<string, Tally>();

function keyOf(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 160);
}

function add(key: string, ms: number, count: number): void {
  const tally = tallies.get(key) ?? { count: 0, totalMs: 0, maxMs: 0 };
  tally.count += count;
  tally.totalMs += ms;
  tally.maxMs = Math.max(tally.maxMs, ms);
  tallies.set(key, tally);
}

function textOf(query: unknown): string {
  if (typeof query === 'string') return query;
  if (typeof query === 'object' && query !== null && 'text' in query) return String(query.text);
  return '(unknown)';
}

async function hookPostgres(): Promise<void> {
  const { default: pg } = await import('pg');
  const prototype = pg.Client.prototype as unknown as Record<string, unknown>;
  const original = prototype.query as (...args: unknown[]) => unknown;
  prototype.query = function query(this: unknown, ...args: unknown[]): unknown {
    const key = keyOf(textOf(args[0]));
    const started = performance.now();
    const done = () => add(key, performance.now() - started, 1);
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (...results: unknown[]) => {
        done();
        return (callback as (...values: unknown[]) => unknown)(...results);
      };
      return original.apply(this, args);
    }
    const result = original.apply(this, args);
    if (result instanceof Promise) result.then(done, done);
    else done();
    return result;
  };
}

/** The SQL of a Parse ('P': name, query) or simple Query ('Q': query) message; undefined otherwise. */
function statementOf(message: Uint8Array): string | undefined {
  const type = message[0];
  if (type !== 0x50 && type !== 0x51) return undefined;
  let at = 5;
  if (type === 0x50) {
    while (at < message.length && message[at] !== 0) at += 1;
    at += 1;
  }
  let end = at;
  while (end < message.length && message[end] !== 0) end += 1;
  return Buffer.from(message.buffer, message.byteOffset + at, end - at).toString('utf8');
}

async function hookPglite(): Promise<void> {
  const { PGlite } = await import('@electric-sql/pglite');
  const prototype = PGlite.prototype as unknown as Record<string, unknown>;
  for (const method of ['execProtocolStream', 'execProtocol'] as const) {
    const original = prototype[method] as (message: Uint8Array, ...rest: unknown[]) => Promise<unknown>;
    let current = '(protocol)';
    prototype[method] = async function execute(
      this: unknown,
      message: Uint8Array,
      ...rest: unknown[]
    ): Promise<unknown> {
      const statement = statementOf(message);
      if (statement !== undefined) current = keyOf(statement);
      const key = current;
      const started = performance.now();
      try {
        return await original.call(this, message, ...rest);
      } finally {
        add(key, performance.now() - started, statement === undefined ? 0 : 1);
      }
    };
  }
}

if (isMainThread && output !== undefined && output !== '') {
  await hookPostgres();
  await hookPglite();
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  process.on('exit', () => {
    delay.disable();
    const ms = (nanoseconds: number) => Math.round(nanoseconds / 1e5) / 10;
    const report: StatementReport = {
      pid: process.pid,
      argv: process.argv.slice(2),
      eventLoopDelayMs: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) },
      statements: [...tallies]
        .map(([sql, tally]) => ({
          sql,
          count: tally.count,
          totalMs: Math.round(tally.totalMs * 10) / 10,
          maxMs: Math.round(tally.maxMs * 10) / 10,
        }))
        .sort((a, b) => b.totalMs - a.totalMs),
    };
    writeFileSync(
      path.join(output, `statements-${process.pid}.json`),
      `${JSON.stringify(report, null, 1)}\n`,
    );
  });
}
