import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { type SQL, sql } from 'drizzle-orm';
import { drizzle as drizzleNodePostgres } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePostgres } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { ALWAYS_AVAILABLE, type DatabaseAvailability, type OutageLogger } from './database-availability.js';
import { type EmbeddedDatabase, ThreadedPGlite } from './pglite-worker/pglite-worker.js';
import { WriteCountingDatabase } from './pglite-worker/write-counting-database.js';
import * as schema from './schema.js';
import { type DriverSqlConnection, type RawDatabase, sqlConnection } from './sql-connection.js';
import { WatchedPool } from './watched-pool.js';

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;
export type DatabaseKind = 'embedded' | 'postgres';

/** An open database with its schema migrated: PGlite in a folder, or a PostgreSQL pool. */
export interface DatabaseHandle {
  readonly db: Database;
  readonly kind: DatabaseKind;
  /** The driver underneath (for pg-boss). */
  readonly raw: RawDatabase;
  /** Raw SQL and transactions on the same connection(s), shared with the job queue. */
  readonly sql: DriverSqlConnection;
  /** Whether the database answers now; queries fail at once while it does not (PostgreSQL). */
  readonly availability: DatabaseAvailability;
  /** Runs a trivial query; rejects when the database does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export type DatabaseLocation =
  | { readonly kind: 'postgres'; readonly url: string; readonly poolSize: number }
  /**
   * `dataDir` undefined keeps the database in memory (tests); `snapshot` then starts it from a
   * copy of another in-memory database (`dumpDataDir`), which skips initdb and the migrations
   * already applied in it.
   */
  | {
      readonly kind: 'embedded';
      readonly dataDir: string | undefined;
      readonly snapshot?: Blob;
      /**
       * PGlite in a worker thread of its own (PGLITE_THREAD): a long statement never holds HTTP or
       * /healthz (the service's default). Off: in this thread, as tests that reach into it need.
       */
      readonly thread?: boolean;
    };

const MIGRATIONS_FOLDER = fileURLToPath(new URL('./migrations', import.meta.url));
// Any constant works; it only has to be the same in every process of a deployment.
const MIGRATION_LOCK_KEY = 7_345_112_901;

/** Settings (`SET name = value`) every connection starts with; names and values are plain words. */
export type SessionSettings = Readonly<Record<string, string>>;

export interface OpenDatabaseOptions {
  /** Where an outage of PostgreSQL is reported, once when lost and once when regained. */
  readonly logger?: OutageLogger;
}

const silentLogger: OutageLogger = { warn: () => {} };

export async function openDatabase(
  location: DatabaseLocation,
  sessionSettings: SessionSettings = {},
  options: OpenDatabaseOptions = {},
): Promise<DatabaseHandle> {
  for (const [name, value] of Object.entries(sessionSettings)) {
    if (!/^[a-z_][a-z0-9_.]*$/i.test(name) || !/^[\w.-]+$/.test(value)) {
      throw new Error(`Invalid session setting ${name}=${value}`);
    }
  }
  return location.kind === 'postgres'
    ? openPostgres(location.url, location.poolSize, sessionSettings, options.logger ?? silentLogger)
    : openEmbedded(location.dataDir, sessionSettings, location.snapshot, location.thread ?? false);
}

async function openPostgres(
  url: string,
  poolSize: number,
  settings: SessionSettings,
  logger: OutageLogger,
): Promise<DatabaseHandle> {
  // Startup options: each connection has the settings before its first query, at no round trip.
  const options = Object.entries(settings)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
  const pool = new WatchedPool(
    {
      connectionString: url,
      max: poolSize,
      // Under REQUEST_TIMEOUT_MS: a server that does not answer (or a pool that stays full) is a
      // 503, not a hung request. Once an outage is confirmed, connections are refused at once.
      connectionTimeoutMillis: 10_000,
      // A connection whose server vanished without a word (a failover) is noticed, not waited on.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      ...(options === '' ? {} : { options }),
    },
    logger,
  );
  const db = drizzleNodePostgres(pool, { schema });
  try {
    // Several API and worker processes may start at once: one migrates, the others wait.
    await whileLocked(pool, MIGRATION_LOCK_KEY, async () => {
      await pool.query('CREATE EXTENSION IF NOT EXISTS vector');
      await migrateNodePostgres(db, { migrationsFolder: MIGRATIONS_FOLDER });
    });
  } catch (error) {
    await pool.end();
    throw error;
  }
  return {
    db,
    kind: 'postgres',
    raw: pool,
    sql: sqlConnection(pool),
    availability: pool.watch,
    ping: async () => {
      await pool.query('SELECT 1');
    },
    close: () => pool.end(),
  };
}

/**
 * PGlite runs PostgreSQL in single-user mode, where no checkpointer runs: WAL is recycled only
 * after the checkpoints StorageMaintenance asks for (every 128 MiB written), and these settings
 * bound what a checkpoint keeps for reuse (1 GB by default, which a restart left in pg_wal).
 * So most segments are new ones, and PostgreSQL fills a new 16 MB segment with zeros before use
 * (`wal_init_zero`), on the main thread: 40 ms each, about one every 2 s while a big file was
 * indexed, and the slowest requests' wait (/healthz p99 40 ms, 28 ms without). Without it the
 * file is made by writing its last byte, its space allocated as WAL fills it; WAL is as durable
 * (each write is flushed as before).
 * A checkpoint writes every dirty shared buffer at once, on the main thread: with PGlite's 128 MB
 * of buffers each took 75 to 160 ms while a big file was indexed, with 32 MB 35 to 52 ms
 * (bench/indexing, the reads section). The pages stay in the operating system's cache, so reads
 * pay a copy, not a disk read, for the smaller pool; and the process is 130 MiB smaller.
 */
const EMBEDDED_START_PARAMS = [
  ...PGlite.defaultStartParams,
  '-c',
  'max_wal_size=32MB',
  '-c',
  'min_wal_size=32MB',
  '-c',
  'shared_buffers=32MB',
  '-c',
  'wal_init_zero=off',
];

async function openEmbedded(
  dataDir: string | undefined,
  settings: SessionSettings,
  snapshot: Blob | undefined,
  thread: boolean,
): Promise<DatabaseHandle> {
  let releaseLock = () => {};
  // PGlite runs each statement to its end on the thread it lives in: in a thread of its own (with
  // the vector extension), a long query never holds HTTP, /healthz or streaming.
  const open = (options: { dataDir: string | undefined; loadDataDir?: Blob; startParams?: string[] }) =>
    thread
      ? ThreadedPGlite.open(options)
      : PGlite.create({
          ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
          extensions: { vector },
          ...(options.loadDataDir === undefined ? {} : { loadDataDir: options.loadDataDir }),
          ...(options.startParams === undefined ? {} : { startParams: options.startParams }),
        });
  let client: EmbeddedDatabase;
  if (dataDir === undefined) {
    client = await open({ dataDir: undefined, ...(snapshot === undefined ? {} : { loadDataDir: snapshot }) });
  } else {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    releaseLock = lockDataDir(dataDir);
    try {
      client = await open({ dataDir: path.join(dataDir, 'pglite'), startParams: EMBEDDED_START_PARAMS });
    } catch (error) {
      releaseLock();
      throw error;
    }
  }
  // Every statement of this process goes through the count, drizzle's and the job queue's too.
  client = new WriteCountingDatabase(client);
  // drizzle's PGlite driver calls `query` (its parsers applied on this side) and `transaction`.
  const db = drizzlePglite(client as unknown as PGlite, { schema });
  try {
    await client.exec('CREATE EXTENSION IF NOT EXISTS vector');
    await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
    // PGlite is one session: set once, they hold for its life.
    for (const [name, value] of Object.entries(settings)) await client.exec(`SET ${name} = '${value}'`);
    // One process, which counts its own writes: nobody listens for changed teams (migration 0015).
    await client.exec("SET app.lexical_notices = 'off'");
  } catch (error) {
    await client.close();
    releaseLock();
    throw error;
  }
  return {
    db: db as unknown as Database,
    kind: 'embedded',
    raw: client,
    sql: sqlConnection(client),
    availability: ALWAYS_AVAILABLE,
    ping: async () => {
      await db.execute(sql`SELECT 1`);
    },
    close: async () => {
      await client.close();
      releaseLock();
    },
  };
}

/**
 * PGlite is single-process: a second process opening the same folder would corrupt it. A lock
 * file with our pid refuses that, and a stale lock (its process gone) is taken over.
 */
function lockDataDir(dataDir: string): () => void {
  const lockFile = path.join(dataDir, 'pglite.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          unlinkSync(lockFile);
        } catch {
          // Already gone: nothing to release.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(lockFile, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
        throw new Error(
          `The embedded database in ${dataDir} is in use by process ${owner}. PGlite serves one process: run one, or set DATABASE_URL for several.`,
        );
      }
      unlinkSync(lockFile);
    }
  }
  throw new Error(`Could not lock ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Runs raw SQL and returns its rows; both drivers answer `{ rows }`. */
export async function queryRows<T>(db: Database, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

/**
 * Runs `work` while no other process of the deployment runs work under the same `key`: a session
 * advisory lock on a connection of its own (PostgreSQL), so the pool stays free for `work`.
 * PGlite is opened by one process only: there it just runs.
 */
export async function whileLocked<T>(database: RawDatabase, key: number, work: () => Promise<T>): Promise<T> {
  if ('exec' in database) return work();
  const client = new pg.Client(database.options);
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [key]);
    return await work();
  } finally {
    // Ending the session releases its lock, whatever happened to `work`.
    await client.end().catch(() => {});
  }
}
