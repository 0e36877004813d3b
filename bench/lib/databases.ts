// A fresh database for one benchmark run: PGlite in a temporary DATA_DIR, or a new PostgreSQL
// database next to BENCH_DATABASE_URL's, removed at the end (or on abort).
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { DatabaseLocation } from '../../src/db/client.js';
import { deferCleanup } from './children.js';
import { createScratchDatabase, DEFAULT_BENCH_DATABASE_URL, probePostgres } from './postgres.js';
import { redactUrl } from './report.js';

export type DatabaseName = 'pglite' | 'postgres';

export const DATABASE_LABEL: Record<DatabaseName, string> = { pglite: 'PGlite', postgres: 'PostgreSQL' };

export interface BenchDatabase {
  readonly name: DatabaseName;
  /** The service's settings for it (DATA_DIR, or DATABASE_URL with a fixed ENCRYPTION_KEY). */
  readonly env: Readonly<Record<string, string>>;
  /** Where the benchmark process opens it itself (only while no service has it open, for PGlite). */
  readonly location: DatabaseLocation;
  /** PostgreSQL: the database's name and URL (for a client of the benchmark's own). */
  readonly postgres: { readonly name: string; readonly url: string } | undefined;
  /** Drops the database or removes the folder (also done on abort). */
  release(): Promise<void>;
}

/** Creates an empty database of the given kind; `prefix` names it (`bench_search_…`). */
export async function createBenchDatabase(
  name: DatabaseName,
  prefix: string,
  adminUrl: string,
  progress: (message: string) => void,
  /** Start from a copy: a PostgreSQL template database (with its ENCRYPTION_KEY), or a PGlite DATA_DIR. */
  copyOf?: { readonly template: string; readonly encryptionKey?: string },
): Promise<BenchDatabase> {
  if (name === 'pglite') {
    const directory = mkdtempSync(path.join(os.tmpdir(), `${prefix.replaceAll('_', '-')}-`));
    if (copyOf !== undefined) cpSync(copyOf.template, directory, { recursive: true });
    return {
      name,
      env: { DATA_DIR: directory },
      location: { kind: 'embedded', dataDir: directory },
      postgres: undefined,
      release: deferCleanup(() => rmSync(directory, { recursive: true, force: true })),
    };
  }
  const scratch = await createScratchDatabase(adminUrl, prefix, copyOf?.template);
  progress(`created database ${scratch.name}${copyOf === undefined ? '' : ` from ${copyOf.template}`}`);
  return {
    name,
    env: {
      DATABASE_URL: scratch.url,
      ENCRYPTION_KEY: copyOf?.encryptionKey ?? randomBytes(32).toString('hex'),
    },
    location: { kind: 'postgres', url: scratch.url, poolSize: 4 },
    postgres: { name: scratch.name, url: scratch.url },
    release: deferCleanup(async () => {
      await scratch.drop();
      progress(`dropped database ${scratch.name}`);
    }),
  };
}

export interface AvailableDatabases {
  readonly databases: readonly DatabaseName[];
  readonly skipped: readonly { readonly database: DatabaseName; readonly reason: string }[];
  readonly postgresVersion: string | undefined;
  readonly adminUrl: string;
}

/** Which of the wanted databases can run here: PostgreSQL only when BENCH_DATABASE_URL answers. */
export async function availableDatabases(
  wanted: readonly DatabaseName[],
  progress: (message: string) => void,
): Promise<AvailableDatabases> {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_DATABASE_URL;
  const skipped: { database: DatabaseName; reason: string }[] = [];
  let postgresVersion: string | undefined;
  if (wanted.includes('postgres')) {
    const probe = await probePostgres(adminUrl);
    if (probe.ok) postgresVersion = probe.version;
    else {
      const reason = `${redactUrl(adminUrl)} is not reachable (${probe.reason})`;
      skipped.push({ database: 'postgres', reason });
      progress(`PostgreSQL: skipped, ${reason}`);
    }
  }
  return {
    databases: wanted.filter((database) => !skipped.some((skip) => skip.database === database)),
    skipped,
    postgresVersion,
    adminUrl,
  };
}

/** A target's verdict, as a report's last lines list it (`verdictLines`). */
export interface Check {
  readonly met: boolean;
  readonly text: string;
}

/**
 * A report's last lines: each target's verdict, each database skipped and why, and how to reach
 * PostgreSQL when it was the one skipped.
 */
export function verdictLines(
  checks: readonly Pick<Check, 'text'>[],
  skipped: AvailableDatabases['skipped'],
): string[] {
  return [
    ...checks.map((check) => `- ${check.text}`),
    ...skipped.map((skip) => `- ${DATABASE_LABEL[skip.database]}: skipped, ${skip.reason}.`),
    ...(skipped.some((skip) => skip.database === 'postgres')
      ? [
          '',
          `Set BENCH_DATABASE_URL (default ${redactUrl(DEFAULT_BENCH_DATABASE_URL)}) to run on PostgreSQL.`,
        ]
      : []),
  ];
}

/** `127.0.0.1:5432 (this machine)`. */
export function postgresHost(url: string): string {
  try {
    const parsed = new URL(url);
    const local = ['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname);
    return `${parsed.host}${local ? ' (this machine)' : ''}`;
  } catch {
    return 'an unparsable URL';
  }
}

/** The line a report gives about the PostgreSQL server, when one was used. */
export function postgresLine(available: AvailableDatabases): string[] {
  return available.postgresVersion === undefined || !available.databases.includes('postgres')
    ? []
    : [`PostgreSQL ${available.postgresVersion} at ${postgresHost(available.adminUrl)}.`];
}

/** Bytes under a folder, recursively (a PGlite data folder). */
export function directorySize(directory: string): number {
  let total = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    total += entry.isDirectory() ? directorySize(full) : statSync(full).size;
  }
  return total;
}

/** The database's size on disk in MiB: `pg_database_size`, or PGlite's folder. */
export async function databaseSizeMiB(database: BenchDatabase): Promise<number> {
  if (database.postgres === undefined) {
    return database.location.kind === 'embedded' && database.location.dataDir !== undefined
      ? directorySize(database.location.dataDir) / 2 ** 20
      : 0;
  }
  const client = new pg.Client({ connectionString: database.postgres.url });
  client.on('error', () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ size: string }>(
      'SELECT pg_database_size(current_database()) AS size',
    );
    return Number(rows[0]?.size ?? 0) / 2 ** 20;
  } finally {
    await client.end();
  }
}
