import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/test-database.js';
import { TEAM_ACCESS } from '../../access.js';
import { type DatabaseHandle, openDatabase } from '../client.js';
import { type ChunkToStore, type DocumentFields, deleteTeamDocument, replaceDocument } from './documents.js';
import { foldTeamChunkTotals, readTeamChunkTotals } from './search.js';

let testDatabase: TestDatabase;
let database: DatabaseHandle;

beforeAll(async () => {
  testDatabase = await createTestDatabase();
  database = await openDatabase(testDatabase.location);
});
afterAll(async () => {
  await database?.close();
  await testDatabase?.drop();
});

async function newTeam(name: string): Promise<number> {
  const { rows } = await database.sql.executeSql('INSERT INTO teams (name) VALUES ($1) RETURNING id', [name]);
  return Number(rows[0]?.id);
}

function fields(teamId: number, externalId: string): DocumentFields {
  return {
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
  };
}

/** `count` chunks of different lengths: the mean is not any one chunk's. */
function chunks(count: number): ChunkToStore[] {
  return Array.from({ length: count }, (_, position) => {
    const text = `Pump ${position} ${'valve gauge boiler '.repeat(position + 1)}`;
    return { position, text, headingPath: [], pageLabels: [], tokenCount: 5, contextualText: text };
  });
}

/** What counting the team's chunks says: what the totals must always equal. */
async function counted(teamId: number): Promise<{ chunks: number; averageLength: number }> {
  const { rows } = await database.sql.executeSql<{ chunks: number; average: number }>(
    `SELECT count(*)::int AS chunks, coalesce(avg(lexical_length), 0)::float8 AS average
     FROM chunks WHERE team_id = $1`,
    [teamId],
  );
  return { chunks: Number(rows[0]?.chunks), averageLength: Number(rows[0]?.average) };
}

async function totals(teamId: number): Promise<{ chunks: number; averageLength: number }> {
  const { chunks, averageLength } = await readTeamChunkTotals(database.sql, teamId);
  return { chunks, averageLength };
}

it("follows a team's chunks as documents are stored, replaced, edited and deleted", async () => {
  const teamId = await newTeam('Totals');
  const otherTeamId = await newTeam('Neighbours');
  expect(await totals(teamId)).toEqual({ chunks: 0, averageLength: 0 });
  const first = await replaceDocument(database.sql, fields(teamId, 'a'), 'h1', chunks(3), undefined);
  const second = await replaceDocument(database.sql, fields(teamId, 'b'), 'h2', chunks(5), undefined);
  await replaceDocument(database.sql, fields(otherTeamId, 'c'), 'h3', chunks(7), undefined);
  expect((await totals(teamId)).chunks).toBe(8);
  expect(await totals(teamId)).toEqual(await counted(teamId));
  expect((await totals(otherTeamId)).chunks).toBe(7);

  await replaceDocument(database.sql, fields(teamId, 'a'), 'h4', chunks(1), undefined, { storedChunks: 3 });
  expect(await totals(teamId)).toEqual(await counted(teamId));
  expect((await totals(teamId)).chunks).toBe(6);

  await database.sql.executeSql(
    'UPDATE chunks SET lexical_length = lexical_length + 10 WHERE document_id = $1',
    [second],
  );
  expect(await totals(teamId)).toEqual(await counted(teamId));

  await deleteTeamDocument(database.sql, teamId, first);
  expect(await totals(teamId)).toEqual(await counted(teamId));
  expect((await totals(teamId)).chunks).toBe(5);
  expect((await totals(otherTeamId)).chunks).toBe(7);

  // A team deleted with its documents (a cascade): nothing of it is left counted.
  await database.sql.executeSql('DELETE FROM teams WHERE id = $1', [otherTeamId]);
  expect(await totals(otherTeamId)).toEqual({ chunks: 0, averageLength: 0 });
});

it('folds a team into one row that sums to the same totals, and leaves other teams alone', async () => {
  const teamId = await newTeam('Folded');
  const otherTeamId = await newTeam('Unfolded');
  for (let index = 0; index < 6; index++) {
    await replaceDocument(
      database.sql,
      fields(teamId, `doc-${index}`),
      `h${index}`,
      chunks(index + 1),
      undefined,
    );
  }
  await replaceDocument(database.sql, fields(otherTeamId, 'x'), 'hx', chunks(2), undefined);
  await replaceDocument(database.sql, fields(otherTeamId, 'y'), 'hy', chunks(3), undefined);
  const before = await readTeamChunkTotals(database.sql, teamId);
  expect(before.rows).toBeGreaterThanOrEqual(6);

  await foldTeamChunkTotals(database.sql, teamId);
  const after = await readTeamChunkTotals(database.sql, teamId);
  expect(after).toEqual({ ...before, rows: 1 });
  expect(await totals(teamId)).toEqual(await counted(teamId));
  expect((await readTeamChunkTotals(database.sql, otherTeamId)).rows).toBe(2);

  // A team whose chunks are all gone folds to no row at all.
  for (let index = 0; index < 6; index++) {
    const { rows } = await database.sql.executeSql(
      'SELECT id FROM documents WHERE team_id = $1 AND external_id = $2',
      [teamId, `doc-${index}`],
    );
    await deleteTeamDocument(database.sql, teamId, Number(rows[0]?.id));
  }
  await foldTeamChunkTotals(database.sql, teamId);
  expect(await readTeamChunkTotals(database.sql, teamId)).toEqual({ chunks: 0, averageLength: 0, rows: 0 });
});

it('keeps the sum while documents are stored and deleted and the team is folded, all at once', async () => {
  const teamId = await newTeam('Busy');
  const stored = await Promise.all(
    Array.from({ length: 6 }, (_, index) =>
      replaceDocument(database.sql, fields(teamId, `old-${index}`), `o${index}`, chunks(2), undefined),
    ),
  );
  await Promise.all([
    ...Array.from({ length: 12 }, (_, index) =>
      replaceDocument(
        database.sql,
        fields(teamId, `new-${index}`),
        `n${index}`,
        chunks((index % 4) + 1),
        undefined,
      ),
    ),
    ...stored.map((documentId) => deleteTeamDocument(database.sql, teamId, documentId)),
    ...Array.from({ length: 4 }, () => foldTeamChunkTotals(database.sql, teamId)),
  ]);
  expect(await totals(teamId)).toEqual(await counted(teamId));
  expect((await totals(teamId)).chunks).toBe(30);
});
