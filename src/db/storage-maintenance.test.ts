import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { uploadFields } from '../../test/helpers/test-documents.js';
import { type DatabaseHandle, openDatabase } from './client.js';
import { type ChunkToStore, deleteTeamDocument, replaceDocument } from './repositories/documents.js';
import {
  EMBEDDED_MAINTENANCE_DEFAULTS,
  InProcessStorageMaintenance,
  STARTUP_VACUUM_MESSAGE,
  type StorageMaintenanceSettings,
  VACUUMED_AFTER_DELETES_MESSAGE,
} from './storage-maintenance.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'maintenance-'));
let database: DatabaseHandle;
let teamId: number;
const logged: string[] = [];
const logger = { info: (_details: object, message: string) => logged.push(message), warn: () => {} };

beforeAll(async () => {
  database = await openDatabase({ kind: 'embedded', dataDir });
  const { rows } = await database.sql.executeSql("INSERT INTO teams (name) VALUES ('Archive') RETURNING id");
  teamId = Number(rows[0]?.id);
});
afterAll(async () => {
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function maintenance(settings: Partial<StorageMaintenanceSettings>): InProcessStorageMaintenance {
  return new InProcessStorageMaintenance(database.sql, logger, {
    ...EMBEDDED_MAINTENANCE_DEFAULTS,
    intervalMs: 60_000,
    quietMs: 0,
    ...settings,
  });
}

function manual(
  externalId: string,
  count: number,
  onChunksCommitted?: (chunks: number) => void,
): Promise<number> {
  const chunks: ChunkToStore[] = Array.from({ length: count }, (_, position) => {
    const text = `Part ${position}: ${Array.from({ length: 40 }, (_, word) => `term${(position * 41 + word) % 5000}`).join(' ')}`;
    return { position, text, headingPath: [], pageLabels: [], tokenCount: 42, contextualText: text };
  });
  return replaceDocument(
    database.sql,
    uploadFields(teamId, externalId),
    `hash-${externalId}`,
    chunks,
    undefined,
    onChunksCommitted === undefined ? {} : { onChunksCommitted },
  );
}

async function chunkTablesBytes(): Promise<number> {
  const { rows } = await database.sql.executeSql(
    `SELECT sum(pg_total_relation_size(name::regclass))::float8 AS bytes
     FROM unnest(ARRAY['chunks', 'chunk_terms', 'chunk_embeddings']) AS name`,
  );
  return Number(rows[0]?.bytes);
}

async function redoLsn(): Promise<string> {
  const { rows } = await database.sql.executeSql('SELECT redo_lsn::text AS lsn FROM pg_control_checkpoint()');
  return String(rows[0]?.lsn);
}

it('checkpoints once enough WAL was written, so PGlite can recycle it', async () => {
  const checkpoints = maintenance({ walBytesPerCheckpoint: 1024 * 1024 });
  await checkpoints.runDue();
  const before = await redoLsn();
  await checkpoints.runDue();
  expect(await redoLsn()).toBe(before);
  await manual('wal', 300);
  await checkpoints.runDue();
  expect(await redoLsn()).not.toBe(before);
  expect(logged).toContain('database checkpoint: its WAL can be recycled');
});

it('keeps little WAL for reuse, and makes a new WAL segment without first filling it with zeros', async () => {
  const { rows } = await database.sql.executeSql(
    "SELECT name, setting, unit FROM pg_settings WHERE name IN ('max_wal_size', 'min_wal_size', 'wal_init_zero') ORDER BY name",
  );
  // Sizes are in MB; zero-filling each new 16 MB segment held the main thread for 40 ms.
  expect(rows).toEqual([
    { name: 'max_wal_size', setting: '32', unit: 'MB' },
    { name: 'min_wal_size', setting: '32', unit: 'MB' },
    { name: 'wal_init_zero', setting: 'off', unit: null },
  ]);
});

it('takes the folding of term counts up again after a start, when a stop cut it short', async () => {
  const big = await manual('cut-short', 3000);
  // Deleted with nothing noted: as if the service stopped before its vacuum after deletes was done.
  await deleteTeamDocument(database.sql, teamId, big);
  await database.sql.executeSql('VACUUM team_term_chunks');
  await database.sql.executeSql('VACUUM chunk_terms');
  const crowdedTerms = async () =>
    Number(
      (
        await database.sql.executeSql<{ crowded: number }>(
          `SELECT count(*)::int AS crowded FROM (
             SELECT 1 FROM team_term_chunks GROUP BY team_id, term HAVING count(*) > 1 OR sum(chunks) = 0
           ) AS terms`,
        )
      ).rows[0]?.crowded,
    );
  expect(await crowdedTerms()).toBeGreaterThan(0);

  logged.length = 0;
  const started = maintenance({ walBytesPerCheckpoint: 64 * 1024 * 1024 });
  started.start();
  await started.runDue();
  await started.stop();
  expect(await crowdedTerms()).toBe(0);
  // An operator (and bench/indexing) hears that the start took up a vacuum, then that it is done.
  const startLine = logged.indexOf(STARTUP_VACUUM_MESSAGE);
  expect(startLine).toBeGreaterThanOrEqual(0);
  expect(logged.indexOf(VACUUMED_AFTER_DELETES_MESSAGE, startLine)).toBeGreaterThan(startLine);
});

it("gives a big deleted document's space back: the chunk tables shrink to about their size before it", async () => {
  const vacuums = maintenance({ walBytesPerCheckpoint: 64 * 1024 * 1024 });
  await manual('kept', 50);
  const before = await chunkTablesBytes();
  const big = await manual('big', 3000);
  const grown = await chunkTablesBytes();
  expect(grown).toBeGreaterThan(before * 3);

  const deleted = await deleteTeamDocument(database.sql, teamId, big);
  expect(deleted).toBe(3000);
  vacuums.noteDeleted(deleted ?? 0);
  await vacuums.runDue();
  expect(logged).toContain('database vacuumed after deletes');
  expect(await chunkTablesBytes()).toBeLessThan(before * 1.5 + 1024 * 1024);
});

async function tablesBytes(tables: readonly string[]): Promise<number> {
  const { rows } = await database.sql.executeSql(
    'SELECT sum(pg_total_relation_size(name::regclass))::float8 AS bytes FROM unnest($1::text[]) AS name',
    [tables],
  );
  return Number(rows[0]?.bytes);
}

it('gives the space back when the deleted document was stored before the one kept, term counts included', async () => {
  const vacuums = maintenance({ walBytesPerCheckpoint: 64 * 1024 * 1024 });
  const tables = ['chunks', 'chunk_terms', 'chunk_embeddings', 'team_term_chunks'];
  const before = await tablesBytes(tables);
  const big = await manual('big-first', 3000);
  await manual('kept-after', 50);
  expect(await tablesBytes(tables)).toBeGreaterThan(before * 3);

  const deleted = await deleteTeamDocument(database.sql, teamId, big);
  vacuums.noteDeleted(deleted ?? 0);
  await vacuums.runDue();
  // The kept document's rows sit after the deleted ones': a vacuum alone gives back no file's end.
  expect(await tablesBytes(tables)).toBeLessThan(before * 1.5 + 2 * 1024 * 1024);
  const { rows } = await database.sql.executeSql<{ crowded: number }>(
    `SELECT count(*)::int AS crowded FROM (
       SELECT 1 FROM team_term_chunks GROUP BY team_id, term HAVING count(*) > 1 OR sum(chunks) = 0
     ) AS terms`,
  );
  expect(rows[0]?.crowded).toBe(0);
});

async function chunkTablesState(): Promise<{
  pages: number;
  visiblePages: number;
  estimatedChunks: number;
  analysed: boolean;
}> {
  const { rows } = await database.sql.executeSql<{
    pages: number;
    visible: number;
    chunks: number;
    analysed: boolean;
  }>(
    `SELECT t.relpages AS pages, t.relallvisible AS visible, greatest(c.reltuples, 0)::float8 AS chunks,
       EXISTS (SELECT 1 FROM pg_statistic WHERE starelid = t.oid) AS analysed
     FROM pg_class AS t, pg_class AS c WHERE t.oid = 'chunk_terms'::regclass AND c.oid = 'chunks'::regclass`,
  );
  const row = rows[0];
  return {
    pages: Number(row?.pages),
    visiblePages: Number(row?.visible),
    estimatedChunks: Number(row?.chunks),
    analysed: row?.analysed === true,
  };
}

it('vacuums the chunk tables as they grow, so postings are read from the index alone, and (where it analyses) analyses them once writes pause', async () => {
  const clock = { now: 1_000_000 };
  const growth = new InProcessStorageMaintenance(
    database.sql,
    logger,
    {
      ...EMBEDDED_MAINTENANCE_DEFAULTS,
      analyses: true,
      insertedChunksPerVacuum: 500,
      quietMs: 3000,
    },
    () => clock.now,
  );
  await database.sql.executeSql('DELETE FROM pg_statistic WHERE starelid = $1::regclass', ['chunk_terms']);
  const vacuums = () => logged.filter((message) => message === 'database vacuumed after writes').length;
  const before = vacuums();
  // A big document's chunks are committed (and counted) statement by statement.
  let notes = 0;
  await manual('growing', 1500, (chunks) => {
    notes += 1;
    growth.noteInserted(chunks);
  });
  expect(notes).toBeGreaterThan(1);
  await growth.runDue();
  expect(vacuums()).toBe(before + 1);
  const grown = await chunkTablesState();
  expect(grown.visiblePages).toBe(grown.pages);
  const { rows } = await database.sql.executeSql<{ chunks: number }>(
    'SELECT count(*)::int AS chunks FROM chunks',
  );
  expect(grown.estimatedChunks).toBeGreaterThan(Number(rows[0]?.chunks) * 0.9);
  // Writes go on: no analysis yet (its whole-table sample would stall PGlite).
  expect(grown.analysed).toBe(false);

  // Fewer new chunks than the setting are not worth another pass; that many are.
  await manual('a-little-more', 100, (chunks) => growth.noteInserted(chunks));
  await growth.runDue();
  expect(vacuums()).toBe(before + 1);
  await manual('some-more', 400, (chunks) => growth.noteInserted(chunks));
  await growth.runDue();
  expect(vacuums()).toBe(before + 2);
  const again = await chunkTablesState();
  expect(again.visiblePages).toBe(again.pages);
  expect(again.analysed).toBe(false);

  // Writes paused: what was stored is analysed.
  clock.now += 3000;
  await growth.runDue();
  expect(vacuums()).toBe(before + 3);
  expect((await chunkTablesState()).analysed).toBe(true);
});

it("never analyses on PGlite (its ANALYZE holds the service's one thread), only vacuums", async () => {
  const clock = { now: 2_000_000 };
  const embedded = new InProcessStorageMaintenance(
    database.sql,
    logger,
    { ...EMBEDDED_MAINTENANCE_DEFAULTS, insertedChunksPerVacuum: 100, quietMs: 3000 },
    () => clock.now,
  );
  await database.sql.executeSql('DELETE FROM pg_statistic WHERE starelid = $1::regclass', ['chunk_terms']);
  await manual('embedded-growth', 2000, (chunks) => embedded.noteInserted(chunks));
  clock.now += 60_000;
  await embedded.runDue();
  const state = await chunkTablesState();
  expect(state.visiblePages).toBe(state.pages);
  expect(state.analysed).toBe(false);
});
