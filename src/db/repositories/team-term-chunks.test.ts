import { expect, it } from 'vitest';
import { databaseForTheseTests } from '../../../test/helpers/test-database.js';
import { insertTeam, uploadFields } from '../../../test/helpers/test-documents.js';
import { type ChunkToStore, deleteTeamDocument, replaceDocument } from './documents.js';
import { FOLD_TERM_CHUNKS_AFTER_ROWS, foldTeamTermChunks, readTermChunks } from './search.js';
import { foldTermChunksAfter, type TermChunksPosition } from './team-term-chunks.js';

const testDatabase = databaseForTheseTests();
const sql = () => testDatabase().sql;

const WORDS = ['pump', 'valve', 'gauge', 'boiler', 'turbine', 'flange', 'gasket', 'piston'];

/** `count` chunks; chunk i holds the first i + 1 words (some twice), so the words' frequencies differ. */
function chunks(count: number, offset = 0): ChunkToStore[] {
  return Array.from({ length: count }, (_, position) => {
    const words = WORDS.slice(0, ((position + offset) % WORDS.length) + 1);
    const text = `${words.join(' ')} ${words.slice(0, 2).join(' ')}`;
    return { position, text, headingPath: [], pageLabels: [], tokenCount: 5, contextualText: text };
  });
}

/** Each term's chunks, counted from the postings: what the kept counts must always equal. */
async function counted(teamId: number): Promise<Map<string, number>> {
  const { rows } = await sql().executeSql<{ term: string; chunks: number }>(
    'SELECT term, count(*)::int AS chunks FROM chunk_terms WHERE team_id = $1 GROUP BY term',
    [teamId],
  );
  return new Map(rows.map((row) => [row.term, Number(row.chunks)]));
}

async function kept(teamId: number): Promise<Map<string, number>> {
  const { rows } = await sql().executeSql<{ term: string }>(
    'SELECT DISTINCT term FROM team_term_chunks WHERE team_id = $1',
    [teamId],
  );
  const { chunks } = await readTermChunks(
    sql(),
    teamId,
    rows.map((row) => row.term),
  );
  return new Map([...chunks].filter(([, count]) => count !== 0));
}

it("follows each term's chunks as documents are stored, replaced and deleted, team by team", async () => {
  const teamId = await insertTeam(sql(), 'Terms');
  const otherTeamId = await insertTeam(sql(), 'Other terms');
  const first = await replaceDocument(sql(), uploadFields(teamId, 'a'), 'h1', chunks(3), undefined);
  await replaceDocument(sql(), uploadFields(teamId, 'b'), 'h2', chunks(6, 2), undefined);
  await replaceDocument(sql(), uploadFields(otherTeamId, 'c'), 'h3', chunks(4), undefined);
  expect(await kept(teamId)).toEqual(await counted(teamId));
  expect((await readTermChunks(sql(), teamId, ['pump'])).chunks.get('pump')).toBe(9);
  expect((await readTermChunks(sql(), otherTeamId, ['pump'])).chunks.get('pump')).toBe(4);

  await replaceDocument(sql(), uploadFields(teamId, 'a'), 'h4', chunks(1), undefined, { storedChunks: 3 });
  expect(await kept(teamId)).toEqual(await counted(teamId));
  await deleteTeamDocument(sql(), teamId, first);
  expect(await kept(teamId)).toEqual(await counted(teamId));
  expect((await readTermChunks(sql(), teamId, ['pump', 'unknown'])).chunks).toEqual(
    new Map([
      ['pump', 6],
      ['unknown', 0],
    ]),
  );

  // A team deleted with its documents (a cascade): nothing of it is left counted.
  await sql().executeSql('DELETE FROM teams WHERE id = $1', [otherTeamId]);
  expect(await kept(otherTeamId)).toEqual(new Map());
});

it('says which terms have many rows, and folds them to one row each with the same counts', async () => {
  const teamId = await insertTeam(sql(), 'Crowded');
  for (let index = 0; index <= FOLD_TERM_CHUNKS_AFTER_ROWS; index++) {
    await replaceDocument(sql(), uploadFields(teamId, `doc-${index}`), `h${index}`, chunks(1), undefined);
  }
  const before = await readTermChunks(sql(), teamId, ['pump', 'valve']);
  // Every document holds "pump"; none holds "valve" (a one-chunk document has one word).
  expect(before.crowdedTerms).toEqual(['pump']);
  await foldTeamTermChunks(sql(), teamId, before.crowdedTerms);
  const after = await readTermChunks(sql(), teamId, ['pump', 'valve']);
  expect(after.chunks).toEqual(before.chunks);
  expect(after.crowdedTerms).toEqual([]);
  const { rows } = await sql().executeSql<{ rows: number }>(
    `SELECT count(*)::int AS rows FROM team_term_chunks WHERE team_id = $1 AND term = 'pump'`,
    [teamId],
  );
  expect(rows[0]?.rows).toBe(1);
});

it('keeps every count right while documents are stored and deleted and terms folded, all at once', async () => {
  const teamId = await insertTeam(sql(), 'Busy terms');
  const stored = await Promise.all(
    Array.from({ length: 6 }, (_, index) =>
      replaceDocument(sql(), uploadFields(teamId, `old-${index}`), `o${index}`, chunks(3, index), undefined),
    ),
  );
  const terms = WORDS.map((word) => word.replace(/e$/, ''));
  await Promise.all([
    ...Array.from({ length: 12 }, (_, index) =>
      replaceDocument(
        sql(),
        uploadFields(teamId, `new-${index}`),
        `n${index}`,
        chunks((index % 4) + 1, index),
        undefined,
      ),
    ),
    ...stored.map((documentId) => deleteTeamDocument(sql(), teamId, documentId)),
    ...Array.from({ length: 4 }, () => foldTeamTermChunks(sql(), teamId, terms)),
  ]);
  expect(await kept(teamId)).toEqual(await counted(teamId));
  expect((await counted(teamId)).get('pump')).toBe(30);
});

/** Every row of `team_term_chunks` of these teams, as (team, term) → how many rows. */
async function rowsByTerm(teamIds: readonly number[]): Promise<Map<string, number>> {
  const { rows } = await sql().executeSql<{ team_id: number; term: string; rows: number }>(
    `SELECT team_id, term, count(*)::int AS rows FROM team_term_chunks WHERE team_id = ANY($1::int[])
     GROUP BY team_id, term`,
    [teamIds],
  );
  return new Map(rows.map((row) => [`${row.team_id} ${row.term}`, Number(row.rows)]));
}

it("folds every team's terms in passes of a few rows, dropping the terms whose documents are gone", async () => {
  const teamId = await insertTeam(sql(), 'Folded in passes');
  const otherTeamId = await insertTeam(sql(), 'Also folded');
  const gone = await Promise.all(
    [0, 1, 2].map((index) =>
      replaceDocument(sql(), uploadFields(teamId, `gone-${index}`), `g${index}`, chunks(8, index), undefined),
    ),
  );
  await replaceDocument(sql(), uploadFields(teamId, 'kept'), 'k', chunks(2), undefined);
  await replaceDocument(sql(), uploadFields(otherTeamId, 'theirs'), 't', chunks(5), undefined);
  await replaceDocument(sql(), uploadFields(otherTeamId, 'theirs-too'), 't2', chunks(5, 3), undefined);
  for (const documentId of gone) await deleteTeamDocument(sql(), teamId, documentId);
  const countsBefore = [await counted(teamId), await counted(otherTeamId)];
  expect([...(await rowsByTerm([teamId, otherTeamId])).values()].some((rows) => rows > 1)).toBe(true);

  // Three rows a statement: a pass goes on from where the last statement stopped until the end.
  let position: TermChunksPosition | undefined;
  let statements = 0;
  do {
    position = await foldTermChunksAfter(sql(), position, 3);
    statements += 1;
  } while (position !== undefined);
  expect(statements).toBeGreaterThan(2);

  // One row a term still counted, none for a term only the deleted documents held ("piston").
  expect([await counted(teamId), await counted(otherTeamId)]).toEqual(countsBefore);
  expect(await kept(teamId)).toEqual(countsBefore[0]);
  expect(await kept(otherTeamId)).toEqual(countsBefore[1]);
  const rows = await rowsByTerm([teamId, otherTeamId]);
  expect([...rows.values()].every((count) => count === 1)).toBe(true);
  expect(rows.size).toBe((countsBefore[0]?.size ?? 0) + (countsBefore[1]?.size ?? 0));
  expect(rows.has(`${teamId} piston`)).toBe(false);
});
