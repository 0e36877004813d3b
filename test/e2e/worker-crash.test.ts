import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase, testDatabaseKind } from '../helpers/test-database.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const WORKER = path.join(ROOT, 'test/fixtures/job-worker.ts');

interface WorkerProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  /**
   * Resolves with the first output line matching, or rejects when the process ends first: however
   * long a busy machine takes, the test's timeout is the only bound (for a hang).
   */
  line(pattern: RegExp): Promise<RegExpMatchArray>;
  output(): string;
}

function startWorker(env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += String(chunk);
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return {
    child,
    exited,
    output: () => output,
    line: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          for (const line of output.split('\n')) {
            const match = line.match(pattern);
            if (match) return finish(() => resolve(match));
          }
        };
        const finish = (settle: () => void) => {
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        exited.then(() => {
          check();
          finish(() => reject(new Error(`worker exited before ${pattern}:\n${output}`)));
        });
        check();
      }),
  };
}

interface Snapshot {
  readonly chunks: { document_id: string; position: number; content: string }[];
  readonly indexed: { document_id: string; chunk_count: number }[];
  readonly attempts: { attempt: number; pid: number }[];
  readonly jobState: string | undefined;
}

/** Reads what a worker left behind, after it exited (a PGlite folder opens in one process only). */
async function readSnapshot(target: string, jobId: string): Promise<Snapshot> {
  const statements = {
    chunks: 'SELECT document_id, position, content FROM document_chunks ORDER BY document_id, position',
    indexed: 'SELECT document_id, chunk_count FROM indexed_documents ORDER BY document_id',
    attempts: 'SELECT attempt, pid FROM job_attempts WHERE job_id = $1 ORDER BY attempt',
    job: `SELECT state::text AS state FROM pgboss.job WHERE id = $1
          UNION ALL SELECT state::text FROM pgboss.archive WHERE id = $1`,
  };
  let run: (text: string, values?: unknown[]) => Promise<{ rows: unknown[] }>;
  let close: () => Promise<void>;
  if (target.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: target });
    await client.connect();
    run = (text, values) => client.query(text, values);
    close = () => client.end();
  } else {
    const client = await PGlite.create(target);
    run = (text, values) => client.query(text, values);
    close = () => client.close();
  }
  try {
    const [chunks, indexed, attempts, job] = [
      await run(statements.chunks),
      await run(statements.indexed),
      await run(statements.attempts, [jobId]),
      await run(statements.job, [jobId]),
    ];
    return {
      chunks: chunks.rows as Snapshot['chunks'],
      indexed: indexed.rows as Snapshot['indexed'],
      attempts: attempts.rows as Snapshot['attempts'],
      jobState: (job.rows[0] as { state: string } | undefined)?.state,
    };
  } finally {
    await close();
  }
}

describe('a worker killed mid-job (kill -9)', () => {
  const workers: WorkerProcess[] = [];
  const databases: TestDatabase[] = [];
  const folders: string[] = [];

  /** A fresh database for one worker: a PostgreSQL database, or a PGlite folder. */
  async function freshTarget(): Promise<string> {
    if (testDatabaseKind() === 'postgres') {
      const database = await createTestDatabase();
      databases.push(database);
      if (database.location.kind !== 'postgres') throw new Error('TEST_DATABASE_URL is required');
      return database.location.url;
    }
    const folder = mkdtempSync(path.join(tmpdir(), 'worker-crash-'));
    folders.push(folder);
    // A new PGlite folder costs an initdb (seconds of CPU): make one and copy it.
    template ??= PGlite.create(path.join(folder, 'template')).then(async (client) => {
      await client.close();
      return path.join(folder, 'template');
    });
    const target = path.join(folder, 'pglite');
    cpSync(await template, target, { recursive: true });
    return target;
  }
  let template: Promise<string> | undefined;

  const launch = (env: Record<string, string>) => {
    const worker = startWorker(env);
    workers.push(worker);
    return worker;
  };

  afterEach(() => {
    for (const worker of workers.splice(0)) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  });
  afterAll(async () => {
    for (const database of databases) await database.drop();
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  it('completes the job after a restart, with the rows of a clean run', async () => {
    const cleanTarget = await freshTarget();
    const crashTarget = await freshTarget();

    // A clean run and the run to be killed, side by side on separate databases.
    const clean = launch({ WORKER_DATABASE: cleanTarget, WORKER_SEND: '1' });
    const doomed = launch({ WORKER_DATABASE: crashTarget, WORKER_SEND: '1', WORKER_PAUSE_AT: '3' });
    const [, jobId] = await doomed.line(/^sent (\S+)$/);
    await doomed.line(/^step 1 3$/);
    doomed.child.kill('SIGKILL');
    expect(await doomed.exited).toBeNull();

    const [, cleanJobId] = await clean.line(/^completed (\S+) 1$/);
    expect(await clean.exited).toBe(0);
    const expected = await readSnapshot(cleanTarget, cleanJobId as string);
    expect(expected.chunks).toHaveLength(8);
    expect(expected.indexed).toEqual([{ document_id: 'handbook', chunk_count: 8 }]);

    // Mid-job: some rows written, the job still claimed by the dead worker.
    const partial = await readSnapshot(crashTarget, jobId as string);
    expect(partial.jobState).toBe('active');
    expect(partial.chunks.map((chunk) => chunk.position)).toEqual([0, 1, 2, 3]);
    expect(partial.indexed).toEqual([]);

    // Handed back once the dead worker's heartbeat lease lapses, then resumed by the restarted
    // process (its second attempt, below), however long a busy machine takes to run it.
    const restarted = launch({ WORKER_DATABASE: crashTarget, WORKER_JOB_ID: jobId as string });
    await restarted.line(/^completed \S+ 2$/);
    expect(await restarted.exited).toBe(0);

    const result = await readSnapshot(crashTarget, jobId as string);
    expect(result.jobState).toBe('completed');
    expect(result.chunks).toEqual(expected.chunks);
    expect(result.indexed).toEqual(expected.indexed);
    // Two attempts, one per process: the killed one and the one after the restart.
    expect(result.attempts.map((attempt) => attempt.attempt)).toEqual([1, 2]);
    expect(result.attempts[0]?.pid).toBe(doomed.child.pid);
    expect(result.attempts[1]?.pid).toBe(restarted.child.pid);
    expect(restarted.output()).toMatch(/^step 2 7$/m);
  }, 900_000);
});
