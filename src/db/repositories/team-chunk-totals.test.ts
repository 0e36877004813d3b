import { expect, it } from 'vitest';
import { databaseForTheseTests } from '../../../test/helpers/test-database.js';
import { insertTeam, uploadFields } from '../../../test/helpers/test-documents.js';
import { type ChunkToStore, deleteTeamDocument, replaceDocument } from './documents.js';
import { foldTeamChunkTotals, readTeamChunkTotals } from './search.js';

const testDatabase = databaseForTheseTests();
const sql = () => testDatabase().sql;
const newTeam = (name: string) => insertTeam(sql(), name);

/** `count` chunks of different lengths: the mean is not any one chunk's. */
function chunks(count: number): ChunkToStore[] {
  return Array.from({ length: count }, (_, position) => {
    const text = `Pump ${position} ${'valve gauge boiler '.repeat(position + 1)}`;
    return { position, text, headingPath: [], pageLabels: [], tokenCount: 5, contextualText: text };
  });
}

/** What counting the team's chunks says: what the totals must always equal. */
async function counted(teamId: number): Promise<{ chunks: number; averageLength: number }> {
  const { rows } = await sql().executeSql<{ chunks: number; average: number }>(
    `SELECT count(*)::int AS chunks, coalesce(avg(lexical_length), 0)::float8 AS average
     FROM chunks WHERE team_id = $1`,
    [teamId],
  );
  return { chunks: Number(rows[0]?.chunks), averageLength: Number(rows[0]?.average) };
}

async function totals(teamId: number): Promise<{ chunks: number; averageLength: number }> {
  const { chunks, averageLength } = await readTeamChunkTotals(sql(), teamId);
  return { chunks, averageLength };
}

it("follows a team's chunks as documents are stored, replaced, edited and deleted", async () => {
  const teamId = await newTeam('Totals');
  const otherTeamId = await newTeam('Neighbours');
  expect(await totals(teamId)).toEqual({ chunks: 0, averageLength: 0 });
  const first = await replaceDocument(sql(), uploadFields(teamId, 'a'), 'h1', chunks(3), undefined);
  const second = await replaceDocument(sql(), uploadFields(teamId, 'b'), 'h2', chunks(5), undefined);
  await replaceDocument(sql(), uploadFields(otherTeamId, 'c'), 'h3', chunks(7), undefined);
  expect((await totals(teamId)).chunks).toBe(8);
  expect(await totals(teamId)).toEqual(await counted(teamId));
  expect((await totals(otherTeamId)).chunks).toBe(7);

  await replaceDocument(sql(), uploadFields(teamId, 'a'), 'h4', chunks(1), undefined, { storedChunks: 3 });
  expect(await totals(teamId)).toEqual(await counted(teamId));
  expect((await totals(teamId)).chunks).toBe(6);

  await sql().executeSql('UPDATE chunks SET lexical_length = lexical_length + 10 WHERE document_id = $1', [
    second,
  ]);
  expect(await totals(teamId)).toEqual(await counted(teamId));

  await deleteTeamDocument(sql(), teamId, first);
  expect(await totals(teamId)).toEqual(await counted(teamId));
  expect((await totals(teamId)).chunks).toBe(5);
  expect((await totals(otherTeamId)).chunks).toBe(7);

  // A team deleted with its documents (a cascade): nothing of it is left counted.
  await sql().executeSql('DELETE FROM teams WHERE id = $1', [otherTeamId]);
  expect(await totals(otherTeamId)).toEqual({ chunks: 0, averageLength: 0 });
});

it('folds a team into one row that sums to the same totals, and leaves other teams alone', async () => {
  const teamId = await newTeam('Folded');
  const otherTeamId = await newTeam('Unfolded');
  for (let index = 0; index < 6; index++) {
    await replaceDocument(
      sql(),
      uploadFields(teamId, `doc-${index}`),
      `h${index}`,
      chunks(index + 1),
      undefined,
    );
  }
  await replaceDocument(sql(), uploadFields(otherTeamId, 'x'), 'hx', chunks(2), undefined);
  await replaceDocument(sql(), uploadFields(otherTeamId, 'y'), 'hy', chunks(3), undefined);
  const before = await readTeamChunkTotals(sql(), teamId);
  expect(before.rows).toBeGreaterThanOrEqual(6);

  await foldTeamChunkTotals(sql(), teamId);
  const after = await readTeamChunkTotals(sql(), teamId);
  expect(after).toEqual({ ...before, rows: 1 });
  expect(await totals(teamId)).toEqual(await counted(teamId));
  expect((await readTeamChunkTotals(sql(), otherTeamId)).rows).toBe(2);

  // A team whose chunks are all gone folds to no row at all.
  for (let index = 0; index < 6; index++) {
    const { rows } = await sql().executeSql(
      'SELECT id FROM documents WHERE team_id = $1 AND external_id = $2',
      [teamId, `doc-${index}`],
    );
    await deleteTeamDocument(sql(), teamId, Number(rows[0]?.id));
  }
  await foldTeamChunkTotals(sql(), teamId);
  expect(await readTeamChunkTotals(sql(), teamId)).toEqual({ chunks: 0, averageLength: 0, rows: 0 });
});

it('keeps the sum while documents are stored and deleted and the team is folded, all at once', async () => {
  const teamId = await newTeam('Busy');
  const stored = await Promise.all(
    Array.from({ length: 6 }, (_, index) =>
      replaceDocument(sql(), uploadFields(teamId, `old-${index}`), `o${index}`, chunks(2), undefined),
    ),
  );
  await Promise.all([
    ...Array.from({ length: 12 }, (_, index) =>
      replaceDocument(
        sql(),
        uploadFields(teamId, `new-${index}`),
        `n${index}`,
        chunks((index % 4) + 1),
        undefined,
      ),
    ),
    ...stored.map((documentId) => deleteTeamDocument(sql(), teamId, documentId)),
    ...Array.from({ length: 4 }, () => foldTeamChunkTotals(sql(), teamId)),
  ]);
  expect(await totals(teamId)).toEqual(await counted(teamId));
  expect((await totals(teamId)).chunks).toBe(30);
});
