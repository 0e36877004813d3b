// Built benchmark data kept between runs, on request (`--keep-data`): building a 100,000-chunk
// team takes minutes, and tuning a query means running the same benchmark again and again.
// PostgreSQL keeps a template database `bench_data_<key>` (each run copies it with CREATE
// DATABASE … TEMPLATE and drops its copy); PGlite keeps a DATA_DIR folder (copied likewise).
// Beside each, a JSON file says what it holds (users, tokens, the encryption key). The key
// hashes the data's settings and the code that shapes the rows (migrations, storage, chunker,
// this folder's builders): any change builds afresh.
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import type { DatabaseName } from './databases.js';
import { ROOT } from './paths.js';
import { DEFAULT_BENCH_DATABASE_URL, probePostgres, withClient } from './postgres.js';

const CACHE_DIR = path.join(ROOT, 'node_modules/.cache/bench-data');
/** Files whose content decides what the stored rows look like. */
const SHAPING_SOURCES = [
  'src/db/migrations',
  'src/db/repositories/documents.ts',
  'src/indexing/chunk.ts',
  'src/indexing/document.ts',
  'src/indexing/content-hash.ts',
  'src/indexing/embed-stale-chunks.ts',
  'src/indexing/parse/parse-markdown.ts',
  'src/adapters/embeddings/hashing-embedding-model.ts',
  'bench/lib/team-corpus.ts',
  'bench/lib/team-fixture.ts',
];

function hashSources(hash: ReturnType<typeof createHash>, relative: string): void {
  const full = path.join(ROOT, relative);
  if (!existsSync(full)) return;
  if (statSync(full).isDirectory()) {
    for (const name of readdirSync(full).sort()) hashSources(hash, path.join(relative, name));
    return;
  }
  hash.update(relative);
  hash.update(readFileSync(full));
}

/** A key for data built with `settings` by the current code. */
export function dataKey(database: DatabaseName, settings: unknown): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ database, settings }));
  for (const source of SHAPING_SOURCES) hashSources(hash, source);
  return hash.digest('hex').slice(0, 16);
}

export interface CachedData<T> {
  /** PostgreSQL: the template database's name; PGlite: the DATA_DIR folder to copy. */
  readonly template: string;
  readonly encryptionKey: string | undefined;
  readonly details: T;
}

function sidecar(key: string): string {
  return path.join(CACHE_DIR, `${key}.json`);
}

export function templateName(key: string): string {
  return `bench_data_${key}`;
}

async function databaseExists(adminUrl: string, name: string): Promise<boolean> {
  let found = false;
  await withClient(adminUrl, async (client) => {
    const { rows } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    found = rows.length > 0;
  });
  return found;
}

/** The kept data for `key`, if it is all still there. */
export async function findCachedData<T>(
  database: DatabaseName,
  key: string,
  adminUrl: string,
): Promise<CachedData<T> | undefined> {
  if (!existsSync(sidecar(key))) return undefined;
  const saved = JSON.parse(readFileSync(sidecar(key), 'utf8')) as CachedData<T>;
  const present =
    database === 'postgres' ? await databaseExists(adminUrl, saved.template) : existsSync(saved.template);
  return present ? saved : undefined;
}

/**
 * Keeps a built database: PostgreSQL copies it into a template database (nothing may be connected
 * to it meanwhile), PGlite copies its folder (the service must have stopped).
 */
export async function keepData<T>(
  database: DatabaseName,
  key: string,
  adminUrl: string,
  source: { readonly postgresName?: string; readonly dataDir?: string },
  encryptionKey: string | undefined,
  details: T,
): Promise<void> {
  mkdirSync(CACHE_DIR, { recursive: true });
  let template: string;
  if (database === 'postgres') {
    template = templateName(key);
    const from = source.postgresName;
    if (from === undefined || !/^[a-z_][a-z0-9_]*$/.test(from)) throw new Error('no database to keep');
    await withClient(adminUrl, async (client) => {
      await client.query(`DROP DATABASE IF EXISTS ${template}`);
      await client.query(`CREATE DATABASE ${template} TEMPLATE ${from}`);
    });
  } else {
    template = path.join(CACHE_DIR, key);
    if (source.dataDir === undefined) throw new Error('no folder to keep');
    rmSync(template, { recursive: true, force: true });
    cpSync(source.dataDir, template, { recursive: true, filter: (file) => !file.endsWith('pglite.lock') });
  }
  const saved: CachedData<T> = { template, encryptionKey, details };
  writeFileSync(sidecar(key), `${JSON.stringify(saved)}\n`);
}

/** Removes every kept data set (template databases and folders); answers what it removed. */
export async function forgetAllData(adminUrl: string | undefined): Promise<string[]> {
  const removed: string[] = [];
  if (adminUrl !== undefined) {
    await withClient(adminUrl, async (client) => {
      const { rows } = await client.query<{ datname: string }>(
        "SELECT datname FROM pg_database WHERE datname LIKE 'bench\\_data\\_%'",
      );
      for (const { datname } of rows) {
        if (!/^bench_data_[0-9a-f]+$/.test(datname)) continue;
        await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
        removed.push(`database ${datname}`);
      }
    });
  }
  if (existsSync(CACHE_DIR)) {
    rmSync(CACHE_DIR, { recursive: true, force: true });
    removed.push(CACHE_DIR);
  }
  return removed;
}

/** `--forget-data`: removes the data every setting kept, on PostgreSQL when it answers; reports what went. */
export async function forgetKeptData(progress: (message: string) => void): Promise<void> {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_DATABASE_URL;
  const postgres = await probePostgres(adminUrl);
  const removed = await forgetAllData(postgres.ok ? adminUrl : undefined);
  progress(removed.length === 0 ? 'no kept data' : `removed ${removed.join(', ')}`);
}
