import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TEAM_ACCESS } from '../access.js';
import { type DatabaseHandle, openDatabase } from './client.js';
import { type ChunkToStore, deleteTeamDocument, replaceDocument } from './repositories/documents.js';
import { EmbeddedStorageMaintenance } from './storage-maintenance.js';

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

function manual(externalId: string, count: number): Promise<number> {
  const chunks: ChunkToStore[] = Array.from({ length: count }, (_, position) => {
    const text = `Part ${position}: ${Array.from({ length: 40 }, (_, word) => `term${(position * 41 + word) % 5000}`).join(' ')}`;
    return { position, text, headingPath: [], pageLabels: [], tokenCount: 42, contextualText: text };
  });
  return replaceDocument(
    database.sql,
    {
      teamId,
      source: 'upload',
      externalId,
      connectorId: null,
      title: externalId,
      url: null,
      mimeType: 'text/plain',
      sourceVersion: null,
      sourceModifiedAt: null,
      originId: null,
      metadata: {},
      access: TEAM_ACCESS,
      indexedBy: null,
    },
    `hash-${externalId}`,
    chunks,
    undefined,
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
  const maintenance = new EmbeddedStorageMaintenance(database.sql, logger, {
    walBytesPerCheckpoint: 1024 * 1024,
    deletedChunksPerVacuum: 1000,
    intervalMs: 60_000,
    quietMs: 0,
  });
  await maintenance.runDue();
  const before = await redoLsn();
  await maintenance.runDue();
  expect(await redoLsn()).toBe(before);
  await manual('wal', 300);
  await maintenance.runDue();
  expect(await redoLsn()).not.toBe(before);
  expect(logged).toContain('database checkpoint: its WAL can be recycled');
});

it("gives a big deleted document's space back: the chunk tables shrink to about their size before it", async () => {
  const maintenance = new EmbeddedStorageMaintenance(database.sql, logger, {
    walBytesPerCheckpoint: 64 * 1024 * 1024,
    deletedChunksPerVacuum: 1000,
    intervalMs: 60_000,
    quietMs: 0,
  });
  await manual('kept', 50);
  const before = await chunkTablesBytes();
  const big = await manual('big', 3000);
  const grown = await chunkTablesBytes();
  expect(grown).toBeGreaterThan(before * 3);

  const deleted = await deleteTeamDocument(database.sql, teamId, big);
  expect(deleted).toBe(3000);
  maintenance.noteDeleted(deleted ?? 0);
  await maintenance.runDue();
  expect(logged).toContain('database vacuumed after deletes');
  expect(await chunkTablesBytes()).toBeLessThan(before * 1.5 + 1024 * 1024);
});
