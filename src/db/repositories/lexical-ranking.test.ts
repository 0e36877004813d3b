import { existsSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCIFACT_DIR, loadScifact } from '../../../bench/lib/scifact.js';
import { peopleAccess } from '../../../src/access.js';
import { HANG_BOUND_MS } from '../../../test/helpers/hang-bound.js';
import { planNodes } from '../../../test/helpers/query-plan.js';
import { seededRandom } from '../../../test/helpers/seeded-random.js';
import { databaseForTheseTests } from '../../../test/helpers/test-database.js';
import { insertTeam, textChunks, uploadFields } from '../../../test/helpers/test-documents.js';
import { scoreEveryPosting } from '../../../test/helpers/unpruned-bm25.js';
import { TeamLexicalIndexes } from '../../retrieval/lexical-index/team-lexical-indexes.js';
import type { SqlExecutor } from '../sql-connection.js';
import { replaceDocument } from './documents.js';
import { type ChunkScope, type RankedChunk, rankChunksLexically, readTeamChunkTotals } from './search.js';

const testDatabase = databaseForTheseTests();
const sql = () => testDatabase().sql;

const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'tu', 'vas', 'qi', 'zor', 'bel', 'dun', 'fip', 'gax'];

/** Made-up words the English analysis keeps whole: no stop word, no stemmable ending. */
function vocabulary(size: number): string[] {
  const words: string[] = [];
  for (let index = 0; words.length < size; index++) {
    let word = '';
    for (let rest = index + SYLLABLES.length; rest > 0; rest = Math.floor(rest / SYLLABLES.length)) {
      word += SYLLABLES[rest % SYLLABLES.length];
    }
    words.push(`${word}x`);
  }
  return words;
}

/**
 * Chunks whose words follow Zipf's law over `words` (a few in most chunks, most in few), some
 * repeated within a chunk, lengths spread around `meanLength`.
 */
function zipfChunks(next: () => number, words: readonly string[], count: number, meanLength: number) {
  const weights = words.map((_, rank) => 1 / (rank + 1));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const pick = () => {
    let target = next() * total;
    for (let rank = 0; rank < words.length; rank++) {
      target -= weights[rank] ?? 0;
      if (target <= 0) return words[rank] ?? '';
    }
    return words[words.length - 1] ?? '';
  };
  return Array.from({ length: count }, () => {
    const length = Math.max(1, Math.round(meanLength * (0.2 + 1.6 * next())));
    return Array.from({ length }, pick).join(' ');
  });
}

interface Collection {
  readonly teamId: number;
  readonly words: readonly string[];
  readonly teamListId: number;
  readonly allListIds: readonly number[];
}

/** A team of `documents` × 10 chunks; every fourth document readable by one person only. */
async function storeCollection(seed: number, documents: number, meanLength: number): Promise<Collection> {
  const next = seededRandom(seed);
  const words = vocabulary(400);
  const teamId = await insertTeam(sql(), `Ranking ${seed}`);
  for (let index = 0; index < documents; index++) {
    const fields = uploadFields(teamId, `doc-${index}`, {
      ...(index % 4 === 3 ? { access: peopleAccess('ada@example.com') } : {}),
    });
    await replaceDocument(
      sql(),
      fields,
      `h${index}`,
      textChunks(zipfChunks(next, words, 10, meanLength)),
      undefined,
    );
  }
  const { rows } = await sql().executeSql<{ id: number; team: boolean }>(
    'SELECT id, team FROM access_lists WHERE team_id = $1',
    [teamId],
  );
  return {
    teamId,
    words,
    teamListId: Number(rows.find((row) => row.team)?.id),
    allListIds: rows.map((row) => Number(row.id)),
  };
}

/** Queries of 1 to 8 words, common and rare alike, some words repeated and some in no chunk. */
function queries(seed: number, words: readonly string[], count: number): string[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const length = 1 + Math.floor(next() * 8);
    return Array.from({ length }, () => {
      const roll = next();
      if (roll < 0.05) return 'nowhereword';
      // Half the words from the 40 most common: queries that MaxScore cannot prune easily.
      const rank = roll < 0.5 ? Math.floor(next() * 40) : Math.floor(next() * words.length);
      return words[rank] ?? '';
    }).join(' ');
  });
}

/**
 * `pruned` is a true top `limit` of `every` (all chunks scored, best first): the same scores at
 * every rank (summed in another order: equal to 1e-9), every chunk with its true score, and, ties
 * aside, the same chunks in the same order.
 */
function expectTrueTopK(pruned: readonly RankedChunk[], every: readonly RankedChunk[], limit: number): void {
  const expected = every.slice(0, limit);
  expect(pruned.map((row) => row.score)).toEqual(expected.map((row) => expect.closeTo(row.score, 9)));
  const trueScore = new Map(every.map((row) => [row.chunkId, row.score]));
  for (const row of pruned) expect(row.score).toBeCloseTo(trueScore.get(row.chunkId) ?? Number.NaN, 9);
  const untied = (rows: readonly RankedChunk[]) =>
    rows.filter((row) => rows.filter((other) => Math.abs(other.score - row.score) < 1e-9).length === 1);
  expect(untied(pruned).map((row) => row.chunkId)).toEqual(untied(expected).map((row) => row.chunkId));
}

async function expectSameTopK(
  collection: Pick<Collection, 'teamId'>,
  texts: readonly string[],
  accessListIds: readonly number[],
  limits: readonly number[] = [1, 3, 10, 50],
) {
  const totals = await readTeamChunkTotals(sql(), collection.teamId);
  let compared = 0;
  for (const text of texts) {
    for (const limit of limits) {
      const scope: ChunkScope = { teamId: collection.teamId, accessListIds };
      const ranking = {
        ...scope,
        text,
        phrases: [],
        limit,
        teamChunks: totals.chunks,
        averageLength: totals.averageLength,
      };
      const pruned = (await rankChunksLexically(sql(), ranking)).rows;
      expectTrueTopK(pruned, await scoreEveryPosting(sql(), ranking), limit);
      compared++;
    }
  }
  return compared;
}

describe('exact BM25 top k, pruned, against scoring every posting', () => {
  let short: Collection;
  let long: Collection;

  beforeAll(async () => {
    // Chunks shorter than the impacts' reference length (150) and longer: both bounds' cases.
    short = await storeCollection(7, 30, 60);
    long = await storeCollection(11, 12, 400);
    // Vacuumed, as the service's storage maintenance does after writes: plans are the service's.
    await sql().executeSql('VACUUM');
  }, HANG_BOUND_MS);

  it('ranks a collection of short chunks exactly, for every depth', async () => {
    const totals = await readTeamChunkTotals(sql(), short.teamId);
    expect(totals.averageLength).toBeLessThan(150);
    expect(await expectSameTopK(short, queries(1, short.words, 40), short.allListIds)).toBe(160);
  });

  it('ranks a collection of long chunks exactly, for every depth', async () => {
    const totals = await readTeamChunkTotals(sql(), long.teamId);
    expect(totals.averageLength).toBeGreaterThan(150);
    expect(await expectSameTopK(long, queries(2, long.words, 30), long.allListIds)).toBe(120);
  });

  it('ranks exactly within what a reader may open, the filter applied before ranking', async () => {
    const texts = queries(3, short.words, 20);
    await expectSameTopK(short, texts, [short.teamListId]);
    // The filter is felt: some query's top 50 differs once the private documents count.
    const totals = await readTeamChunkTotals(sql(), short.teamId);
    const top = async (accessListIds: readonly number[], text: string) =>
      (
        await rankChunksLexically(sql(), {
          teamId: short.teamId,
          accessListIds,
          text,
          phrases: [],
          limit: 50,
          teamChunks: totals.chunks,
          averageLength: totals.averageLength,
        })
      ).rows.map((row) => row.chunkId);
    const differing = [];
    for (const text of texts) {
      if ((await top([short.teamListId], text)).join() !== (await top([...short.allListIds], text)).join()) {
        differing.push(text);
      }
    }
    expect(differing.length).toBeGreaterThan(0);
  });

  it('reads few postings of a common word when a rarer one decides the top', async () => {
    // The pruning is visible in the work done: EXPLAIN counts the rows the scans of postings return.
    const totals = await readTeamChunkTotals(sql(), short.teamId);
    const { rows: frequencies } = await sql().executeSql<{ term: string; chunks: number }>(
      `SELECT term, count(*)::int AS chunks FROM chunk_terms WHERE team_id = $1 GROUP BY term ORDER BY chunks DESC, term`,
      [short.teamId],
    );
    const common = frequencies[0];
    const rare = frequencies.find((row) => row.chunks >= 20 && row.chunks <= 40);
    if (common === undefined || rare === undefined)
      throw new Error('the collection lacks a common and a rare word');
    expect(common.chunks).toBeGreaterThan(200);
    let read = 0;
    const counting: SqlExecutor = {
      executeSql: async (text, values) => {
        for (const node of await planNodes(sql(), text, values, { analyze: true }))
          if (node['Relation Name'] === 'chunk_terms')
            read += Number(node['Actual Rows']) * Number(node['Actual Loops']);
        return { rows: [] };
      },
    };
    await rankChunksLexically(counting, {
      teamId: short.teamId,
      accessListIds: short.allListIds,
      text: `${common.term} ${rare.term}`,
      phrases: [],
      limit: 10,
      teamChunks: totals.chunks,
      averageLength: totals.averageLength,
    });
    expect(read).toBeGreaterThanOrEqual(10);
    expect(read).toBeLessThan((common.chunks + rare.chunks) / 3);
  });
});

const scifactDirectory = process.env.BENCH_SCIFACT_DIR ?? DEFAULT_SCIFACT_DIR;

/** Real text and real queries (where the SciFact copy the benchmarks read is on this machine). */
describe.runIf(existsSync(path.join(scifactDirectory, 'corpus.jsonl')))(
  'exact BM25 top k on SciFact abstracts and claims, pruned, against scoring every posting',
  () => {
    let teamId: number;
    let accessListIds: number[];
    /** Every third claim: short and long ones, common and rare words alike, in a third of the time. */
    let claims: string[];

    beforeAll(async () => {
      const { documents, queries } = loadScifact(scifactDirectory);
      expect(queries).toHaveLength(300);
      claims = queries.filter((_, index) => index % 3 === 0).map((query) => query.text);
      teamId = await insertTeam(sql(), 'SciFact');
      for (const document of documents.slice(0, 1000)) {
        const text = `${document.title}\n${document.text}`;
        await replaceDocument(
          sql(),
          uploadFields(teamId, document.id),
          document.id,
          textChunks([text]),
          undefined,
        );
      }
      // Vacuumed, as the service's storage maintenance does after writes: plans are the service's.
      await sql().executeSql('VACUUM');
      const { rows } = await sql().executeSql<{ id: number }>(
        'SELECT id FROM access_lists WHERE team_id = $1',
        [teamId],
      );
      accessListIds = rows.map((row) => Number(row.id));
    }, HANG_BOUND_MS);

    it(
      "ranks every third test claim exactly over 1,000 abstracts in the database's statement",
      async () => {
        expect(await expectSameTopK({ teamId }, claims, accessListIds, [10])).toBe(100);
        expect(await expectSameTopK({ teamId }, claims.slice(0, 20), accessListIds, [50])).toBe(20);
      },
      HANG_BOUND_MS,
    );

    it(
      'ranks every third test claim exactly over 1,000 abstracts in memory, as searches do',
      async () => {
        const indexes = new TeamLexicalIndexes(sql(), {
          memoryBytes: 64 * 1024 * 1024,
          reloadAfterMs: 3_600_000,
          retryAfterMs: 3_600_000,
        });
        const reader = { teamId, userId: null, email: null, groups: [] };
        const totals = await readTeamChunkTotals(sql(), teamId);
        const ranking = { reader, teamChunks: totals.chunks, averageLength: totals.averageLength };
        // The first search starts loading the team's postings and is answered by the database.
        expect(await indexes.rank({ ...ranking, text: claims[0] ?? '', limit: 10 })).toBeUndefined();
        await indexes.loadsSettled();
        let compared = 0;
        for (const [text, limit] of [
          ...claims.map((claim) => [claim, 10] as const),
          ...claims.slice(0, 20).map((claim) => [claim, 50] as const),
        ]) {
          const memory = await indexes.rank({ ...ranking, text, limit });
          if (memory === undefined) throw new Error('the postings are not in memory');
          // The reader may open the team's documents: a reference over no lists would match anything.
          expect([...memory.accessListIds].sort()).toEqual([...accessListIds].sort());
          const every = await scoreEveryPosting(sql(), {
            ...ranking,
            teamId,
            text,
            phrases: [],
            limit,
            accessListIds: [...memory.accessListIds],
          });
          expectTrueTopK(memory.chunks, every, limit);
          compared++;
        }
        expect(compared).toBe(120);
      },
      HANG_BOUND_MS,
    );
  },
);
