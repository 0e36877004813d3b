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

/** Runs statements as `inner` does, keeping those that read postings. */
function recordingPostingReads(
  inner: SqlExecutor,
): SqlExecutor & { reads: { text: string; values: unknown[] }[] } {
  const reads: { text: string; values: unknown[] }[] = [];
  return {
    reads,
    executeSql: (text, values, options) => {
      if (text.includes('chunk_terms')) reads.push({ text, values: values ?? [] });
      return inner.executeSql(text, values, options);
    },
  };
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
  // chunk: a sync after a 3 MiB file took 39 s that way. Neither statement may plan it.
  expect(recorder.reads).toHaveLength(2);
  for (const read of recorder.reads)
    expect(await indexesPlanned(read)).not.toContain('chunk_terms_team_term_impact_idx');
});
