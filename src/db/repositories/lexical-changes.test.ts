import { expect, it } from 'vitest';
import { planNodes } from '../../../test/helpers/query-plan.js';
import { databaseForTheseTests } from '../../../test/helpers/test-database.js';
import { insertTeam, uploadFields } from '../../../test/helpers/test-documents.js';
import { teamReader } from '../../access.js';
import type { SqlExecutor } from '../sql-connection.js';
import { type ChunkToStore, replaceDocument } from './documents.js';
import {
  readChunkPostings,
  readLexicalSnapshot,
  readLexicalSync,
  readTeamChunkIds,
} from './lexical-changes.js';

const testDatabase = databaseForTheseTests();
const sql = () => testDatabase().sql;

/** `count` chunks of ten words each, every chunk's words its own (`w<chunk>x<n>`). */
function chunks(count: number): ChunkToStore[] {
  return Array.from({ length: count }, (_, position) => {
    const text = Array.from({ length: 10 }, (__, n) => `w${position}x${n}`).join(' ');
    return { position, text, headingPath: [], pageLabels: [], tokenCount: 10, contextualText: text };
  });
}

/** Runs statements as `inner` does, keeping those that read postings (chunks' tsvectors). */
function recordingPostingReads(
  inner: SqlExecutor,
): SqlExecutor & { reads: { text: string; values: unknown[] }[] } {
  const reads: { text: string; values: unknown[] }[] = [];
  return {
    reads,
    executeSql: (text, values, options) => {
      if (text.includes('search::text')) reads.push({ text, values: values ?? [] });
      return inner.executeSql(text, values, options);
    },
  };
}

/** Each chunk's postings as `chunk_terms` holds them, which ranking in the database reads. */
async function storedPostings(chunkIds: readonly number[]): Promise<Map<number, string[]>> {
  const { rows } = await sql().executeSql<{ chunk_id: string | number; term: string; frequency: number }>(
    'SELECT chunk_id, term, frequency FROM chunk_terms WHERE chunk_id = ANY($1::bigint[])',
    [chunkIds],
  );
  const byChunk = new Map<number, string[]>();
  for (const row of rows) {
    const chunkId = Number(row.chunk_id);
    byChunk.set(chunkId, [...(byChunk.get(chunkId) ?? []), `${row.term} ${row.frequency}`].sort());
  }
  return byChunk;
}

/** The indexes a statement's plan reads, as the database plans it now. */
async function indexesPlanned(statement: { text: string; values: unknown[] }): Promise<unknown[]> {
  const nodes = await planNodes(sql(), statement.text, statement.values);
  return nodes.map((node) => node['Index Name']).filter((name) => name !== undefined);
}

it("reads a large write's postings by chunk, with statistics from before it", async () => {
  const teamId = await insertTeam(sql(), 'Statistics from before');
  const otherTeamId = await insertTeam(sql(), 'Another team');
  await replaceDocument(sql(), uploadFields(teamId, 'small'), 'h0', chunks(1), undefined);
  await replaceDocument(sql(), uploadFields(otherTeamId, 'theirs'), 'h1', chunks(3), undefined);
  // The statistics a new database has before a large write, or one whose autovacuum is off or has
  // not run since: none for the postings (this file's database is new), and a change log read
  // while it was nearly empty.
  await sql().executeSql('ANALYZE lexical_changes');
  const { snapshot } = await readLexicalSnapshot(sql());
  await replaceDocument(sql(), uploadFields(teamId, 'large'), 'h2', chunks(400), undefined);

  const recorder = recordingPostingReads(sql());
  const sync = await readLexicalSync(recorder, teamReader(teamId), snapshot, '');
  // What a user notices: every new chunk, with its own words and nothing of the other team's.
  expect(sync.changed).toHaveLength(400);
  expect(sync.changed.every((chunk) => chunk.postings.length === 10)).toBe(true);
  expect(new Set(sync.changed.flatMap((chunk) => chunk.postings.map((posting) => posting.term))).size).toBe(
    4_000,
  );

  const chunkIds = await readTeamChunkIds(sql(), teamId);
  expect(await readChunkPostings(recorder, teamId, chunkIds)).toHaveLength(401);
  // Another team's chunk asked for by id is left out.
  const theirs = await readTeamChunkIds(sql(), otherTeamId);
  expect(await readChunkPostings(sql(), teamId, theirs)).toEqual([]);

  // The ranking index (team, term, …) read by chunk id scans the team's whole range of it once per
  // chunk: a sync after a 3 MiB file took 39 s that way. Chunks are read by their primary key.
  expect(recorder.reads).toHaveLength(2);
  for (const read of recorder.reads) {
    const indexes = await indexesPlanned(read);
    expect(
      indexes.filter((name) => name !== 'chunks_pkey' && !String(name).startsWith('lexical_changes')),
    ).toEqual([]);
  }
});

it('reads the postings the database ranks by, whatever the words hold', async () => {
  const teamId = await insertTeam(sql(), 'Awkward words');
  const { snapshot } = await readLexicalSnapshot(sql());
  const texts = [
    "It's O'Neil's: see http://example.com/a'b?q=1 and C:\\temp\\x.txt, rock'n'roll",
    'Ünïcode façade 😀 emoji-word foo_bar "quoted" 3.14 x@y.com naïve naïve naïve',
    'the the the',
  ];
  const stored = texts.map((text, position) => ({
    position,
    text,
    headingPath: [],
    pageLabels: [],
    tokenCount: 10,
    contextualText: text,
  }));
  await replaceDocument(sql(), uploadFields(teamId, 'awkward'), 'h3', stored, undefined);
  const chunkIds = await readTeamChunkIds(sql(), teamId);
  const expected = await storedPostings(chunkIds);
  const asStored = (chunk: {
    chunkId: number;
    postings: readonly { term: string; frequency: number }[];
  }): [number, string[]] => [
    chunk.chunkId,
    chunk.postings.map((posting) => `${posting.term} ${posting.frequency}`).sort(),
  ];

  // A chunk of stop words alone has no postings: a load leaves it out, a sync removes it.
  const loaded = await readChunkPostings(sql(), teamId, chunkIds);
  expect(loaded).toHaveLength(2);
  expect(new Map(loaded.map(asStored))).toEqual(expected);
  expect(expected.get(loaded[0]?.chunkId ?? 0)).toContain("/a'b?q=1 1");
  const sync = await readLexicalSync(sql(), teamReader(teamId), snapshot, '');
  expect(new Map(sync.changed.filter((chunk) => chunk.postings.length > 0).map(asStored))).toEqual(expected);
  // The stop words' chunk stored no postings, so it changed none: a sync does not see it.
  expect(sync.changed).toHaveLength(2);
});
