import { describe, expect, it, vi } from 'vitest';
import { countEventLoopIterations } from '../../../test/helpers/event-loop-iterations.js';
import { seededRandom } from '../../../test/helpers/seeded-random.js';
import { databaseForTheseTests, testDatabaseKind } from '../../../test/helpers/test-database.js';
import { insertTeam, textChunks, uploadFields } from '../../../test/helpers/test-documents.js';
import { peopleAccess, type Reader } from '../../access.js';
import {
  readableAccessListIds,
  saveAccessList,
  spreadDocumentAccess,
} from '../../db/repositories/access-lists.js';
import {
  deleteTeamDocument,
  markDocumentUnchanged,
  replaceDocument,
} from '../../db/repositories/documents.js';
import {
  deleteOldLexicalChanges,
  readLexicalSnapshot,
  readLexicalSync,
} from '../../db/repositories/lexical-changes.js';
import {
  analyzeTexts,
  type RankedChunk,
  rankChunksLexically,
  readChunkHits,
  readTeamChunkTotals,
} from '../../db/repositories/search.js';
import type { SqlConnection, SqlExecutor } from '../../db/sql-connection.js';
import { searchHitOf } from '../search-hit.js';
import type { PreparedSearch } from '../search-types.js';
import { QueryAnalyses } from './query-analyses.js';
import { TeamLexicalIndex } from './team-lexical-index.js';
import { type ChangeMarks, TeamLexicalIndexes } from './team-lexical-indexes.js';

const testDatabase = databaseForTheseTests();
const sql = () => testDatabase().sql;

const WORDS = Array.from({ length: 60 }, (_, index) => `w${index.toString(36)}q`);

/** Texts whose words follow Zipf's law: a few words in most chunks, most in few. */
function texts(next: () => number, count: number): string[] {
  return Array.from({ length: count }, () =>
    Array.from({ length: 5 + Math.floor(next() * 40) }, () => {
      const rank = Math.floor(WORDS.length * next() ** 2.5);
      return WORDS[rank] ?? 'w0q';
    }).join(' '),
  );
}

const settings = { memoryBytes: 64 * 1024 * 1024, reloadAfterMs: 3_600_000, retryAfterMs: 3_600_000 };

/** Two readers of a team: Ada (team-wide documents and hers) and someone who may open only team-wide ones. */
function readers(teamId: number): { ada: Reader; teamOnly: Reader } {
  return {
    ada: { teamId, userId: null, email: 'ada@example.com', groups: [] },
    teamOnly: { teamId, userId: null, email: null, groups: [] },
  };
}

/** The team's postings in memory, loaded: the first search starts the load and answers nothing. */
async function loaded(teamId: number): Promise<TeamLexicalIndexes> {
  const indexes = new TeamLexicalIndexes(sql(), settings);
  const query = { reader: readers(teamId).teamOnly, text: 'w0q', limit: 1, teamChunks: 1, averageLength: 1 };
  expect(await indexes.rank(query)).toBeUndefined();
  await indexes.loadsSettled();
  expect(indexes.holds(teamId)).toBe(true);
  return indexes;
}

/**
 * The same search in memory and in the database's statement, the latter filtered by the access
 * lists the reader may open as `readableAccessListIds` reads them (which the sync must read alike).
 */
async function bothWays(
  indexes: TeamLexicalIndexes,
  reader: Reader,
  text: string,
  limit = 10,
): Promise<{ memory: RankedChunk[]; database: RankedChunk[] }> {
  const totals = await readTeamChunkTotals(sql(), reader.teamId);
  const ranking = { text, limit, teamChunks: totals.chunks, averageLength: totals.averageLength };
  const memory = await indexes.rank({ ...ranking, reader });
  if (memory === undefined) throw new Error('the postings are not in memory');
  const accessListIds = await readableAccessListIds(sql(), reader);
  expect([...memory.accessListIds].sort()).toEqual([...accessListIds].sort());
  const database = (
    await rankChunksLexically(sql(), { ...ranking, teamId: reader.teamId, accessListIds, phrases: [] })
  ).rows;
  return { memory: memory.chunks, database };
}

/**
 * The same top k, each chunk with the same score to 9 digits: chunks whose scores differ only in
 * the last bits (JavaScript's and PostgreSQL's logarithms round apart) may trade places.
 */
function expectSameRanking(memory: readonly RankedChunk[], database: readonly RankedChunk[]): void {
  expect(memory.map((hit) => hit.score).length).toBe(database.length);
  memory.forEach((hit, index) => {
    expect(hit.score).toBeCloseTo(database[index]?.score ?? Number.NaN, 9);
  });
  const scores = new Map(database.map((hit) => [hit.chunkId, hit.score]));
  for (const hit of memory) {
    const score = scores.get(hit.chunkId);
    if (score !== undefined) expect(hit.score).toBeCloseTo(score, 9);
  }
  // Every chunk clearly above the k-th score is on both sides.
  const last = database.at(-1)?.score ?? 0;
  const clearlyIn = (hits: readonly RankedChunk[]) =>
    hits
      .filter((hit) => hit.score - last > 1e-9 * Math.max(1, last))
      .map((hit) => hit.chunkId)
      .sort();
  expect(clearlyIn(memory)).toEqual(clearlyIn(database));
}

/** A new team with one document of two chunks, "alpha beta" and "beta gamma". */
async function teamOfTwoChunks(database: SqlConnection, name: string): Promise<number> {
  const teamId = await insertTeam(database, name);
  await replaceDocument(
    database,
    uploadFields(teamId, 'first'),
    'first',
    textChunks(['alpha beta', 'beta gamma']),
    undefined,
  );
  return teamId;
}

/** Adds a second document to `teamOfTwoChunks`' team: one chunk, "beta delta". */
function addSecondDocument(database: SqlConnection, teamId: number): Promise<number> {
  return replaceDocument(
    database,
    uploadFields(teamId, 'second'),
    'second',
    textChunks(['beta delta']),
    undefined,
  );
}

function queries(next: () => number, count: number): string[] {
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + Math.floor(next() * 6) }, () => WORDS[Math.floor(next() * WORDS.length)]).join(
      ' ',
    ),
  );
}

/** The database's executor, counting the statements sent through it (as on PostgreSQL: no count of writes). */
function countingStatements(database: SqlExecutor): { executor: SqlExecutor; statements: number } {
  const counted = {
    statements: 0,
    executor: {
      executeSql: ((text, values, options) => {
        counted.statements += 1;
        return database.executeSql(text, values, options);
      }) as SqlExecutor['executeSql'],
    },
  };
  return counted;
}

/**
 * A follower's marks, as the test drives them: changes heard, and how many of those a barrier has
 * passed (`reported`: reported done); `hear` counts one and tells the listener, as a follower does.
 */
function drivenFollower(): {
  changeMarks: ChangeMarks;
  hear(teamId: number): void;
  hearUntold(): void;
  reportAll(): void;
} {
  let heard = 0;
  let reported = 0;
  let listener: ((teamId: number) => void) | undefined;
  return {
    changeMarks: {
      mark: () => `1:${heard}`,
      covers: (_team, synced) => Number(synced.split(':')[1]) >= reported,
      onChange: (listen) => {
        listener = listen;
      },
    },
    hear(teamId) {
      heard += 1;
      listener?.(teamId);
    },
    /** Heard, but the listener not told (as if the team had not been searched lately). */
    hearUntold() {
      heard += 1;
    },
    reportAll() {
      reported = heard;
    },
  };
}

describe('the postings of a team in memory', () => {
  it('rank as the database does, and every write is searchable in the search that follows it', async () => {
    const next = seededRandom(7);
    const teamId = await insertTeam(sql(), 'In memory');
    const documentIds: number[] = [];
    for (let index = 0; index < 40; index++) {
      const fields = uploadFields(teamId, `doc-${index}`, {
        ...(index % 5 === 4 ? { access: peopleAccess('ada@example.com') } : {}),
      });
      documentIds.push(
        await replaceDocument(sql(), fields, `h${index}`, textChunks(texts(next, 8)), undefined),
      );
    }
    // Two processes' worth: neither hears of the other's writes except through the database.
    const first = await loaded(teamId);
    const second = await loaded(teamId);
    const { ada, teamOnly } = readers(teamId);
    const check = async (indexes: TeamLexicalIndexes) => {
      for (const text of queries(next, 12)) {
        for (const reader of [ada, teamOnly]) {
          const { memory, database } = await bothWays(indexes, reader, text);
          expectSameRanking(memory, database);
        }
      }
    };
    await check(first);
    const onlyTeamWide = await bothWays(first, teamOnly, WORDS.slice(0, 3).join(' '), 50);
    const everything = await bothWays(first, ada, WORDS.slice(0, 3).join(' '), 50);
    expect(onlyTeamWide.memory.map((hit) => hit.chunkId)).not.toEqual(
      everything.memory.map((hit) => hit.chunkId),
    );

    // A new document, with a word no other chunk has.
    const added = await replaceDocument(
      sql(),
      uploadFields(teamId, 'fresh'),
      'fresh',
      textChunks(['zyxwfresh w0q w1q', 'w2q zyxwfresh']),
      undefined,
    );
    for (const indexes of [first, second]) {
      const { memory, database } = await bothWays(indexes, ada, 'zyxwfresh');
      expect(memory).toHaveLength(2);
      expectSameRanking(memory, database);
    }
    // The same document replaced: its old chunks go, the new ones come.
    await replaceDocument(
      sql(),
      uploadFields(teamId, 'fresh'),
      'fresh-2',
      textChunks(['w3q only']),
      undefined,
    );
    expect((await bothWays(second, ada, 'zyxwfresh')).memory).toEqual([]);
    // A document made private: a reader of team-wide documents no longer finds it.
    const [shared] = (await bothWays(second, teamOnly, 'w3q', 1)).memory;
    expect(shared).toBeDefined();
    const { rows } = await sql().executeSql<{ document_id: number }>(
      'SELECT document_id FROM chunks WHERE id = $1',
      [shared?.chunkId],
    );
    const documentId = Number(rows[0]?.document_id);
    const privateList = await saveAccessList(sql(), teamId, peopleAccess('bo@example.com'));
    await sql().executeSql('UPDATE documents SET access_list_id = $2 WHERE id = $1', [
      documentId,
      privateList,
    ]);
    await spreadDocumentAccess(sql(), documentId);
    for (const indexes of [first, second]) {
      const { memory, database } = await bothWays(indexes, teamOnly, 'w3q', 50);
      expect(memory.map((hit) => hit.chunkId)).not.toContain(shared?.chunkId);
      expectSameRanking(memory, database);
    }
    // A deleted document.
    await deleteTeamDocument(sql(), teamId, documentIds[0] ?? 0);
    await deleteTeamDocument(sql(), teamId, added);
    await check(first);
    await check(second);
    for (const text of queries(next, 8)) {
      const { memory, database } = await bothWays(second, ada, text, 50);
      expectSameRanking(memory, database);
    }
  });

  it('analyses a text of words searched before as the database analyses it whole', async () => {
    const database = sql();
    const teamId = await insertTeam(database, 'Query analyses');
    const { teamOnly } = readers(teamId);
    // Words the parser reads in many ways: hyphenated and dotted, numbers, addresses, paths,
    // apostrophes, accents, punctuation stuck to words, stop words.
    const searched = [
      'Why do the well-known IL-10 cells (CD4+) respond faster than e.g. T-cells?',
      "It's 10,000 or 1.5e-3 mg/kg, v1.2.3 at https://example.com/a/b?c=d; mail bob@example.com",
      'café naïve Ångström résumé — "quoted" words… and_underscores foo.bar /usr/local/lib',
      'A 0-dimensional biomaterial shows inductive properties; α-synuclein & β-amyloid!',
    ];
    const analyses = new QueryAnalyses(1000);
    const { snapshot } = await readLexicalSnapshot(database);
    for (const text of searched) {
      const words = analyses.wordsOf(text) ?? [];
      const read = await readLexicalSync(database, teamOnly, snapshot, text, words);
      analyses.learn(words, read.wordLexemes, read.lexemes);
      expect(analyses.lexemesOf(text), text).toEqual([...read.lexemes].sort());
    }
    const next = seededRandom(7);
    const known = searched.flatMap((text) => analyses.wordsOf(text) ?? []);
    for (let round = 0; round < 30; round += 1) {
      const text = Array.from(
        { length: 1 + Math.floor(next() * 12) },
        () => known[Math.floor(next() * known.length)],
      ).join(next() < 0.5 ? ' ' : '\n');
      const [whole] = await analyzeTexts(database, [text]);
      expect(analyses.lexemesOf(text), text).toEqual([...(whole?.keys() ?? [])].sort());
    }
  });

  it('lets what the event loop has waiting run before it ranks, even when it needs no statement', async () => {
    const database = sql();
    const teamId = await insertTeam(database, 'Ranking after waiting I/O');
    await replaceDocument(
      database,
      uploadFields(teamId, 'one'),
      'one',
      textChunks(['alpha beta']),
      undefined,
    );
    const indexes = await loaded(teamId);
    const search = () =>
      indexes.rank({
        reader: readers(teamId).teamOnly,
        text: 'beta',
        limit: 5,
        teamChunks: 1,
        averageLength: 2,
      });
    await search();
    // Searched before, with nothing written since: on PGlite this search runs no statement, so
    // only its own yield lets a callback queued before it (as a request read meanwhile) run first.
    const order: string[] = [];
    setImmediate(() => order.push('waiting callback'));
    const ranked = search().then((result) => {
      order.push('ranking');
      return result;
    });
    expect((await ranked)?.chunks).toHaveLength(1);
    expect(order).toEqual(['waiting callback', 'ranking']);
  });

  it('repeats a search with no statement while nothing is written (PGlite), and sees the next write', async () => {
    const database = sql();
    let statements = 0;
    let postingReads = 0;
    const counting: SqlExecutor & Pick<SqlConnection, 'localWrites'> = {
      executeSql: (text, values, options) => {
        statements += 1;
        if (text.includes('search::text')) postingReads += 1;
        return database.executeSql(text, values, options);
      },
      ...(database.localWrites === undefined ? {} : { localWrites: database.localWrites }),
    };
    // PGlite is this process's alone, so it knows when nothing was written; PostgreSQL is not.
    expect(database.localWrites === undefined).toBe(testDatabaseKind() === 'postgres');
    const teamId = await teamOfTwoChunks(database, 'Searches without writes');
    const indexes = new TeamLexicalIndexes(counting, settings);
    const { ada, teamOnly } = readers(teamId);
    const search = (reader: Reader, text: string) =>
      indexes.rank({ reader, text, limit: 10, teamChunks: 10, averageLength: 2 });
    expect(await search(teamOnly, 'beta')).toBeUndefined();
    await indexes.loadsSettled();
    const first = await search(teamOnly, 'beta');
    expect(first?.chunks).toHaveLength(2);

    statements = 0;
    postingReads = 0;
    expect(await search(teamOnly, 'beta')).toEqual(first);
    const syncsOnRepeat = database.localWrites === undefined ? 1 : 0;
    expect(statements).toBe(syncsOnRepeat);
    // On PostgreSQL that one statement finds nothing changed without reading the change log's postings.
    expect(postingReads).toBe(0);
    // Another reader, or a text with a word neither searched before nor plain, is read once: the
    // reader's lists or the word's lexemes are not known yet. A text of words searched before, or
    // of plain words (the stemmer analyses them), is not.
    statements = 0;
    await search(ada, 'beta');
    await search(teamOnly, 'beta gamma/delta');
    expect(statements).toBe(2);
    statements = 0;
    expect((await search(teamOnly, 'Gamma?'))?.chunks).toHaveLength(1);
    expect(statements).toBe(syncsOnRepeat);
    statements = 0;
    await search(ada, 'beta');
    expect(await search(teamOnly, 'gamma  beta')).toEqual(await search(teamOnly, 'gamma beta'));
    expect((await search(ada, 'beta gamma'))?.chunks).toHaveLength(2);
    expect(statements).toBe(4 * syncsOnRepeat);

    // A write (here from outside this index's executor, as a job's would be) is seen by the next search.
    const second = await addSecondDocument(database, teamId);
    statements = 0;
    postingReads = 0;
    expect((await search(teamOnly, 'beta'))?.chunks).toHaveLength(3);
    // One statement finds that the team changed, the next reads what changed.
    expect(statements).toBe(2);
    expect(postingReads).toBe(1);
    statements = 0;
    postingReads = 0;
    await search(teamOnly, 'beta');
    expect(statements).toBe(syncsOnRepeat);
    expect(postingReads).toBe(0);
    // So is a change of who may open a document: the reader's lists are read again.
    const privateList = await saveAccessList(database, teamId, peopleAccess('ada@example.com'));
    await database.executeSql('UPDATE documents SET access_list_id = $2 WHERE id = $1', [
      second,
      privateList,
    ]);
    await spreadDocumentAccess(database, second);
    expect((await search(teamOnly, 'beta'))?.chunks).toHaveLength(2);
    expect((await search(ada, 'beta'))?.chunks).toHaveLength(3);
  });

  it('repeats a search with no statement while its change mark stays (a follower on PostgreSQL), and syncs once it moves or cannot tell', async () => {
    const database = sql();
    // No count of local writes, as on PostgreSQL: only the marks may spare a statement.
    const counted = countingStatements(database);
    let heard: number | undefined = 0;
    const changeMarks = { mark: (team: number) => (heard === undefined ? undefined : `${team}:${heard}`) };
    const teamId = await teamOfTwoChunks(database, 'Searches with change marks');
    const indexes = new TeamLexicalIndexes(counted.executor, { ...settings, changeMarks });
    const { ada, teamOnly } = readers(teamId);
    const search = (reader: Reader, text: string) =>
      indexes.rank({ reader, text, limit: 10, teamChunks: 10, averageLength: 2 });
    expect(await search(teamOnly, 'beta')).toBeUndefined();
    await indexes.loadsSettled();
    expect((await search(teamOnly, 'beta'))?.chunks).toHaveLength(2);

    counted.statements = 0;
    expect((await search(teamOnly, 'beta'))?.chunks).toHaveLength(2);
    expect((await search(teamOnly, 'gamma'))?.chunks).toHaveLength(1);
    expect(indexes.prepare(teamOnly)).toBeUndefined();
    expect(counted.statements).toBe(0);
    // Another reader's lists are read once.
    await search(ada, 'beta');
    expect(counted.statements).toBe(1);

    // A write the mark has not moved for is not searched yet: the mark is the contract.
    await addSecondDocument(database, teamId);
    counted.statements = 0;
    expect((await search(teamOnly, 'beta'))?.chunks).toHaveLength(2);
    expect(counted.statements).toBe(0);
    // Once heard, a search request begins a sync as it arrives (a statement finds the change, one
    // reads it); other readers' lists are read again.
    heard += 1;
    counted.statements = 0;
    expect(indexes.prepare(teamOnly)).toBeDefined();
    await indexes.syncsSettled();
    expect(counted.statements).toBe(2);
    counted.statements = 0;
    expect((await search(teamOnly, 'beta'))?.chunks).toHaveLength(3);
    expect(counted.statements).toBe(0);
    expect((await search(ada, 'beta'))?.chunks).toHaveLength(3);
    expect(counted.statements).toBe(1);
    counted.statements = 0;
    await search(ada, 'delta');
    expect(counted.statements).toBe(0);
    // A mark that cannot tell (the follower lost its connection) means a statement every search.
    heard = undefined;
    await search(teamOnly, 'beta');
    await search(teamOnly, 'beta');
    expect(counted.statements).toBe(2);
  });

  it('reads a change the moment it is heard, and ranks without waiting for changes nobody was told are done', async () => {
    const database = sql();
    const counted = countingStatements(database);
    const follower = drivenFollower();
    const teamId = await teamOfTwoChunks(database, 'Woken by changes');
    const indexes = new TeamLexicalIndexes(counted.executor, {
      ...settings,
      followForMs: 3_600_000,
      changeMarks: follower.changeMarks,
    });
    const { teamOnly } = readers(teamId);
    const search = (text: string) =>
      indexes.rank({ reader: teamOnly, text, limit: 10, teamChunks: 10, averageLength: 2 });
    const write = (name: string) =>
      replaceDocument(database, uploadFields(teamId, name), name, textChunks([`beta ${name}`]), undefined);
    const hear = () => follower.hear(teamId);
    // A team nobody searched yet is not read when its changes are heard.
    hear();
    expect(await search('beta')).toBeUndefined();
    await indexes.loadsSettled();
    expect((await search('beta'))?.chunks).toHaveLength(2);

    // Heard: read in the background at once (a statement finds the change, one reads it), and the
    // search after it needs none.
    await write('third');
    counted.statements = 0;
    hear();
    await indexes.syncsSettled();
    expect(counted.statements).toBe(2);
    counted.statements = 0;
    expect((await search('beta'))?.chunks).toHaveLength(3);
    expect(counted.statements).toBe(0);

    // Heard but not yet told done (no barrier passed it), and not yet read: the search ranks
    // without it, with no statement, and begins the sync that reads it.
    await write('fourth');
    follower.hearUntold();
    counted.statements = 0;
    expect((await search('beta'))?.chunks).toHaveLength(3);
    await indexes.syncsSettled();
    expect(counted.statements).toBe(2);
    counted.statements = 0;
    expect((await search('beta'))?.chunks).toHaveLength(4);
    expect(counted.statements).toBe(0);

    // Told done (a barrier passed it) before it was read: the search reads it first.
    await write('fifth');
    follower.hearUntold();
    follower.reportAll();
    counted.statements = 0;
    expect((await search('beta'))?.chunks).toHaveLength(5);
    expect(counted.statements).toBe(2);
  });

  it('reads changes heard in quick succession in one sync per followEveryMs', async () => {
    const database = sql();
    const counted = countingStatements(database);
    // Nothing is reported done in this test: every change heard may be read in the background.
    const follower = drivenFollower();
    const teamId = await teamOfTwoChunks(database, 'Woken at most every 25 ms');
    let now = 0;
    const scheduled: { run: () => void; delayMs: number }[] = [];
    const indexes = new TeamLexicalIndexes(
      counted.executor,
      { ...settings, followEveryMs: 25, followForMs: 1_000, changeMarks: follower.changeMarks },
      undefined,
      () => now,
      (run, delayMs) => scheduled.push({ run, delayMs }),
    );
    const { teamOnly } = readers(teamId);
    const search = () =>
      indexes.rank({ reader: teamOnly, text: 'beta', limit: 10, teamChunks: 10, averageLength: 2 });
    /** A document of one chunk with "beta", committed, and its change heard. */
    const writeAndHear = async (name: string) => {
      await replaceDocument(
        database,
        uploadFields(teamId, name),
        name,
        textChunks([`beta ${name}`]),
        undefined,
      );
      follower.hear(teamId);
    };
    expect(await search()).toBeUndefined();
    await indexes.loadsSettled();
    expect((await search())?.chunks).toHaveLength(2);

    // The first change is read at once.
    counted.statements = 0;
    await writeAndHear('third');
    await indexes.syncsSettled();
    expect(counted.statements).toBe(2);
    expect(scheduled).toEqual([]);
    // Two more within 25 ms of that sync: one sync, when the 25 ms are up, reads both.
    now += 5;
    counted.statements = 0;
    await writeAndHear('fourth');
    await writeAndHear('fifth');
    expect(scheduled.map((wake) => wake.delayMs)).toEqual([20]);
    expect((await search())?.chunks).toHaveLength(3);
    expect(scheduled).toHaveLength(1);
    expect(counted.statements).toBe(0);
    now += 20;
    scheduled.shift()?.run();
    await indexes.syncsSettled();
    expect(counted.statements).toBe(2);
    counted.statements = 0;
    expect((await search())?.chunks).toHaveLength(5);
    expect(counted.statements).toBe(0);
    // Later, a change is read at once again.
    now += 100;
    await writeAndHear('sixth');
    await indexes.syncsSettled();
    expect(scheduled).toEqual([]);
    expect(counted.statements).toBe(2);
  });

  it('brings postings being written and searched up to date in the background, so that a search reads none of it', async () => {
    const database = sql();
    let postingReads = 0;
    const counting: SqlExecutor & Pick<SqlConnection, 'localWrites'> = {
      executeSql: (text, values, options) => {
        if (text.includes('search::text')) postingReads += 1;
        return database.executeSql(text, values, options);
      },
      ...(database.localWrites === undefined ? {} : { localWrites: database.localWrites }),
    };
    const teamId = await teamOfTwoChunks(database, 'Followed while written');
    let now = 0;
    const scheduled: { run: () => void; delayMs: number }[] = [];
    const indexes = new TeamLexicalIndexes(
      counting,
      { ...settings, followEveryMs: 25, followForMs: 1_000 },
      undefined,
      () => now,
      (run, delayMs) => scheduled.push({ run, delayMs }),
    );
    const { ada, teamOnly } = readers(teamId);
    const search = (reader: Reader, text: string) =>
      indexes.rank({ reader, text, limit: 10, teamChunks: 10, averageLength: 2 });
    /** A document of one chunk, stored as a job would store it. */
    const write = (name: string, text: string) =>
      replaceDocument(database, uploadFields(teamId, name), name, textChunks([text]), undefined);
    /** `ms` later, the background sync scheduled runs, to its end. */
    const followAfter = async (ms: number) => {
      now += ms;
      scheduled.shift()?.run();
      await indexes.syncsSettled();
    };
    expect(await search(ada, 'beta')).toBeUndefined();
    await indexes.loadsSettled();
    // Nothing changed since the load: nothing is followed.
    expect((await search(ada, 'beta'))?.chunks).toHaveLength(2);
    expect(scheduled).toEqual([]);

    // A search that applies a write starts following the team.
    await addSecondDocument(database, teamId);
    expect((await search(ada, 'beta'))?.chunks).toHaveLength(3);
    expect(scheduled.map((follow) => follow.delayMs)).toEqual([25]);

    // The next write is read by the background sync, and the search after it reads no postings.
    await write('third', 'beta epsilon');
    await followAfter(25);
    postingReads = 0;
    expect((await search(teamOnly, 'beta epsilon'))?.chunks).toHaveLength(4);
    expect(postingReads).toBe(0);
    // It goes on for `followForMs` after the last change found, then stops.
    expect(scheduled).toHaveLength(1);
    await followAfter(25);
    expect(scheduled).toHaveLength(1);
    await followAfter(1_000);
    expect(scheduled).toEqual([]);

    // Writes with nobody searching: the background sync that applies them is the last one.
    expect((await search(ada, 'beta'))?.chunks).toHaveLength(4);
    await write('fourth', 'beta zeta');
    expect((await search(ada, 'zeta'))?.chunks).toHaveLength(1);
    expect(scheduled).toHaveLength(1);
    await write('fifth', 'beta eta');
    await followAfter(1_001);
    expect(scheduled).toEqual([]);
    postingReads = 0;
    expect((await search(ada, 'eta'))?.chunks).toHaveLength(1);
    expect(postingReads).toBe(0);
  });

  it('ranks while the sync statement is under way, and keeps that ranking only when the sync read nothing new', async () => {
    const database = sql();
    // As on PostgreSQL, whatever the test database: no count of local writes, a statement every search.
    const everySearchSyncs: SqlExecutor = {
      executeSql: (text, values, options) => database.executeSql(text, values, options),
    };
    const teamId = await teamOfTwoChunks(database, 'Ranked meanwhile');
    const indexes = new TeamLexicalIndexes(everySearchSyncs, settings);
    const { ada, teamOnly } = readers(teamId);
    const search = async (reader: Reader, text: string) => {
      const totals = await readTeamChunkTotals(database, teamId);
      return indexes.rank({
        reader,
        text,
        limit: 10,
        teamChunks: totals.chunks,
        averageLength: totals.averageLength,
      });
    };
    expect(await search(teamOnly, 'beta')).toBeUndefined();
    await indexes.loadsSettled();
    const rankings = vi.spyOn(TeamLexicalIndex.prototype, 'rank');
    try {
      // The reader's lists are not known yet: ranked once, after the statement.
      const first = await search(teamOnly, 'beta');
      expect(first?.chunks).toHaveLength(2);
      expect(rankings).toHaveBeenCalledTimes(1);
      // Known now, and nothing changed: the ranking made meanwhile is the answer, the database's.
      const both = await search(teamOnly, 'beta gamma');
      expectSameRanking(both?.chunks ?? [], (await bothWays(indexes, teamOnly, 'beta gamma')).database);
      rankings.mockClear();
      expect((await search(teamOnly, 'beta'))?.chunks).toEqual(first?.chunks);
      expect(rankings).toHaveBeenCalledTimes(1);
      // A write: the ranking made meanwhile missed it, so the search ranks again once it is applied.
      await addSecondDocument(database, teamId);
      rankings.mockClear();
      const afterWrite = await search(teamOnly, 'beta');
      expect(afterWrite?.chunks).toHaveLength(3);
      expect(rankings).toHaveBeenCalledTimes(2);
      expectSameRanking(afterWrite?.chunks ?? [], (await bothWays(indexes, teamOnly, 'beta')).database);
      // Another reader's lists are not known: ranked once, after the statement.
      rankings.mockClear();
      expect((await search(ada, 'beta'))?.chunks).toHaveLength(3);
      expect(rankings).toHaveBeenCalledTimes(1);
    } finally {
      rankings.mockRestore();
    }
  });

  it("begins a search's sync as its request arrives where every search needs one, and that search alone uses it", async () => {
    const database = sql();
    const sent: string[] = [];
    let failNext = false;
    // As on PostgreSQL, whatever the test database: no count of local writes, a statement every search.
    const everySearchSyncs: SqlExecutor = {
      executeSql: (text, values, options) => {
        // A sync statement by the text it analyses; the read of what changed by its name.
        if (text.includes('WITH changed')) sent.push('changes');
        else if (text.includes('to_tsvector')) sent.push(String(values?.[1]));
        if (failNext) {
          failNext = false;
          return Promise.reject(new Error('connection lost'));
        }
        return database.executeSql(text, values, options);
      },
    };
    const teamId = await teamOfTwoChunks(database, 'Prepared searches');
    const indexes = new TeamLexicalIndexes(everySearchSyncs, settings);
    const { ada, teamOnly } = readers(teamId);
    const search = async (reader: Reader, text: string, prepared = indexes.prepare(reader)) => {
      const totals = await readTeamChunkTotals(database, teamId);
      const ranking = { limit: 10, teamChunks: totals.chunks, averageLength: totals.averageLength };
      return indexes.rank({ reader, text, ...ranking, prepared });
    };
    // Not in memory yet: nothing to begin.
    expect(indexes.prepare(teamOnly)).toBeUndefined();
    expect(await search(teamOnly, 'beta')).toBeUndefined();
    await indexes.loadsSettled();

    // A write committed before the request arrived is seen, by the one statement begun on arrival
    // (it carries no text: the plain words are analysed here).
    await addSecondDocument(database, teamId);
    sent.length = 0;
    const prepared = indexes.prepare(teamOnly);
    expect(prepared).toBeDefined();
    const afterWrite = await search(teamOnly, 'beta delta', prepared);
    expect(sent).toEqual(['', 'changes']);
    expectSameRanking(afterWrite?.chunks ?? [], (await bothWays(indexes, teamOnly, 'beta delta')).database);
    sent.length = 0;
    expect((await search(teamOnly, 'beta'))?.chunks).toHaveLength(3);
    expect(sent).toEqual(['']);

    // Words this process cannot analyse yet: the search sends its text after all, and learns them.
    sent.length = 0;
    expect((await search(teamOnly, 'beta gamma/delta'))?.chunks).toHaveLength(3);
    expect(sent).toEqual(['', 'beta gamma/delta']);
    sent.length = 0;
    await search(teamOnly, 'beta gamma/delta');
    expect(sent).toEqual(['']);

    // Begun for another reader: not this search's (it reads its own reader's lists).
    const privateList = await saveAccessList(database, teamId, peopleAccess('ada@example.com'));
    const { rows } = await database.executeSql<{ id: number }>(
      'UPDATE documents SET access_list_id = $2 WHERE team_id = $1 RETURNING id',
      [teamId, privateList],
    );
    for (const { id } of rows) await spreadDocumentAccess(database, Number(id));
    const forAda = indexes.prepare(ada);
    sent.length = 0;
    expect((await search(teamOnly, 'beta', forAda))?.chunks).toEqual([]);
    // Ada's (which read the chunks the change moved), then the search's own.
    expect(sent).toEqual(['', 'changes', 'beta']);

    // A begun statement that failed: the search syncs again; one never used leaves no rejection.
    failNext = true;
    sent.length = 0;
    expect((await search(ada, 'beta'))?.chunks).toHaveLength(3);
    expect(sent).toEqual(['', 'beta']);
    failNext = true;
    expect(await indexes.prepare(ada)?.accessListIds).toBeUndefined();

    // Begun for postings given up and loaded again since: those sync on their own.
    let now = 0;
    const clocked = new TeamLexicalIndexes(everySearchSyncs, settings, undefined, () => now);
    const rankWith = (prepared: PreparedSearch | undefined) =>
      clocked.rank({ reader: ada, text: 'beta', limit: 10, teamChunks: 3, averageLength: 2, prepared });
    expect(await rankWith(undefined)).toBeUndefined();
    await clocked.loadsSettled();
    const beforeReload = clocked.prepare(ada);
    await beforeReload?.accessListIds;
    now += settings.reloadAfterMs + 1;
    expect(await rankWith(undefined)).toBeUndefined();
    await clocked.loadsSettled();
    sent.length = 0;
    expect((await rankWith(beforeReload))?.chunks).toHaveLength(3);
    expect(sent).toEqual(['beta']);
  });

  it('keeps the hits the load and searches read, and reads again those whose chunk or document changed', async () => {
    const teamId = await insertTeam(sql(), 'Hits in memory');
    const fields = uploadFields(teamId, 'guide', { title: 'Deploy guide', url: 'https://wiki.example/v1' });
    const documentId = await replaceDocument(
      sql(),
      fields,
      'g1',
      textChunks(['w0q w1q deploy', 'w0q w2q rollback']),
      undefined,
    );
    await replaceDocument(sql(), uploadFields(teamId, 'other'), 'o1', textChunks(['w0q w3q']), undefined);
    const indexes = await loaded(teamId);
    const { teamOnly } = readers(teamId);
    const read: number[][] = [];
    /** A search: ranked in memory, its hits from memory or read (the chunks read are recorded). */
    const search = async (text: string) => {
      const ranked = await indexes.rank({
        reader: teamOnly,
        text,
        limit: 10,
        teamChunks: 3,
        averageLength: 3,
      });
      if (ranked === undefined) throw new Error('the postings are not in memory');
      const scope = { teamId, accessListIds: ranked.accessListIds };
      return indexes.hits(teamId, ranked.chunks, (missing) => {
        read.push(missing.map((chunk) => chunk.chunkId));
        return readChunkHits(sql(), scope, missing);
      });
    };
    // The load read the small team's hits with its postings: the first search reads none.
    const first = await search('w0q');
    expect(first.map((hit) => hit.title).sort()).toEqual(['Deploy guide', 'Deploy guide', 'other']);
    expect(read).toHaveLength(0);
    expect(first).toEqual(
      (
        await readChunkHits(
          sql(),
          { teamId, accessListIds: await readableAccessListIds(sql(), teamOnly) },
          first.map((hit) => ({ chunkId: hit.chunkId, score: hit.score })),
        )
      ).map(searchHitOf),
    );
    // The same search again: every hit from memory, the same rows and scores.
    expect(await search('w0q')).toEqual(first);
    expect(read).toHaveLength(0);

    // The document renamed and moved with its chunks kept (a source's rename found unchanged).
    await markDocumentUnchanged(
      sql(),
      documentId,
      { ...fields, title: 'Release guide', url: 'https://wiki.example/v2' },
      null,
    );
    const renamed = await search('w0q');
    expect(renamed.filter((hit) => hit.documentId === documentId).map((hit) => hit.url)).toEqual([
      'https://wiki.example/v2',
      'https://wiki.example/v2',
    ]);
    expect(renamed.filter((hit) => hit.documentId === documentId)[0]?.title).toBe('Release guide');
    expect(read).toHaveLength(1);
    expect(read.at(-1)).toHaveLength(2);

    // Rows read while a sync applied changes are shown but not kept: they may predate it.
    await replaceDocument(sql(), uploadFields(teamId, 'unread'), 'u1', textChunks(['w5q']), undefined);
    const ranked = await indexes.rank({
      reader: teamOnly,
      text: 'w5q',
      limit: 10,
      teamChunks: 4,
      averageLength: 3,
    });
    const scope = { teamId, accessListIds: ranked?.accessListIds ?? [] };
    const racing = await indexes.hits(teamId, ranked?.chunks ?? [], async (missing) => {
      const rows = await readChunkHits(sql(), scope, missing);
      await replaceDocument(sql(), uploadFields(teamId, 'late'), 'l1', textChunks(['w9q']), undefined);
      await search('w9q');
      return rows;
    });
    expect(racing.map((hit) => hit.title)).toEqual(['unread']);
    read.length = 0;
    expect((await search('w5q')).map((hit) => hit.title)).toEqual(['unread']);
    expect(read).toHaveLength(1);
  });

  it("reads a team's hits at load only as far as its cache may hold them", async () => {
    const teamId = await insertTeam(sql(), 'Hits beyond the cache');
    const chunks = texts(seededRandom(11), 1200).map((text, index) => `${text} ${'x'.repeat(200)} c${index}`);
    await replaceDocument(sql(), uploadFields(teamId, 'many'), 'many', textChunks(chunks), undefined);
    // The hits' cache is an eighth of the memory allowed: about half of these 1,200 chunks' rows.
    const memoryBytes = 8 * 600 * (2 * 320 + 400);
    const indexes = new TeamLexicalIndexes(sql(), { ...settings, memoryBytes });
    const { teamOnly } = readers(teamId);
    const query = { reader: teamOnly, text: 'w0q', limit: 1200, teamChunks: 1200, averageLength: 25 };
    expect(await indexes.rank(query)).toBeUndefined();
    await indexes.loadsSettled();
    const ranked = await indexes.rank(query);
    if (ranked === undefined) throw new Error('the postings are not in memory');
    const missing: number[] = [];
    const scope = { teamId, accessListIds: ranked.accessListIds };
    const hits = await indexes.hits(teamId, ranked.chunks, (chunks) => {
      missing.push(...chunks.map((chunk) => chunk.chunkId));
      return readChunkHits(sql(), scope, chunks);
    });
    expect(hits).toHaveLength(ranked.chunks.length);
    // Some were kept from the load, and not all: the rest were read by the search.
    expect(missing.length).toBeGreaterThan(0);
    expect(missing.length).toBeLessThan(ranked.chunks.length);
  });

  it('is not loaded past the memory it may take: the database ranks that team', async () => {
    const teamId = await insertTeam(sql(), 'Too big');
    await replaceDocument(
      sql(),
      uploadFields(teamId, 'one'),
      'one',
      textChunks(texts(seededRandom(3), 50)),
      undefined,
    );
    const indexes = new TeamLexicalIndexes(sql(), { ...settings, memoryBytes: 1024 });
    const query = { reader: readers(teamId).ada, text: 'w0q', limit: 5, teamChunks: 50, averageLength: 20 };
    expect(await indexes.rank(query)).toBeUndefined();
    await indexes.loadsSettled();
    expect(indexes.holds(teamId)).toBe(false);
    // Not tried again at once (retryAfterMs).
    expect(await indexes.rank(query)).toBeUndefined();
    await indexes.loadsSettled();
    expect(indexes.holds(teamId)).toBe(false);
  });

  it('is loaded again once it has not caught up for longer than the change log may be kept', async () => {
    const teamId = await insertTeam(sql(), 'Idle');
    await replaceDocument(sql(), uploadFields(teamId, 'one'), 'one', textChunks(['w0q w1q']), undefined);
    let clock = 0;
    const indexes = new TeamLexicalIndexes(sql(), settings, undefined, () => clock);
    const query = { reader: readers(teamId).ada, text: 'w0q', limit: 5, teamChunks: 1, averageLength: 2 };
    expect(await indexes.rank(query)).toBeUndefined();
    await indexes.loadsSettled();
    expect((await indexes.rank(query))?.chunks).toHaveLength(1);
    await replaceDocument(sql(), uploadFields(teamId, 'two'), 'two', textChunks(['w0q w2q']), undefined);
    // The log is emptied, as after its retention; the process has been idle past reloadAfterMs.
    await deleteOldLexicalChanges(sql(), new Date(Date.now() + 86_400_000), 10_000);
    clock += settings.reloadAfterMs + 1;
    expect(await indexes.rank(query)).toBeUndefined();
    await indexes.loadsSettled();
    expect((await indexes.rank({ ...query, teamChunks: 2 }))?.chunks).toHaveLength(2);
  });

  it("applies a file's many changed chunks a few at a time, the event loop turning between them", async () => {
    const teamId = await insertTeam(sql(), 'Big batch');
    await replaceDocument(sql(), uploadFields(teamId, 'seed'), 'seed', textChunks(['w0q w1q']), undefined);
    const indexes = await loaded(teamId);
    const query = { reader: readers(teamId).ada, text: 'w0q', limit: 500, teamChunks: 301, averageLength: 2 };
    expect((await indexes.rank(query))?.chunks).toHaveLength(1);
    const bigTexts = Array.from({ length: 300 }, (_, index) => `w0q w${(index % 50).toString(36)}q`);
    await replaceDocument(sql(), uploadFields(teamId, 'big'), 'big', textChunks(bigTexts), undefined);

    const iterations = countEventLoopIterations();
    const turnsApplied = new Set<number>();
    let chunksApplied = 0;
    const setChunk = TeamLexicalIndex.prototype.setChunk;
    const applied = vi.spyOn(TeamLexicalIndex.prototype, 'setChunk').mockImplementation(function (
      this: TeamLexicalIndex,
      ...args: Parameters<typeof setChunk>
    ) {
      turnsApplied.add(iterations.current());
      chunksApplied += 1;
      return setChunk.apply(this, args);
    });
    // A clock that moves a millisecond each time it is read: every chunk takes that long to apply.
    let clock = 0;
    const now = vi.spyOn(performance, 'now').mockImplementation(() => {
      clock += 1;
      return clock;
    });
    try {
      expect((await indexes.rank(query))?.chunks).toHaveLength(301);
    } finally {
      iterations.stop();
      now.mockRestore();
      applied.mockRestore();
    }
    expect(chunksApplied).toBe(300);
    // All in one turn, requests read meanwhile (/healthz) would have waited for all 300.
    expect(turnsApplied.size).toBeGreaterThan(50);
  });

  it('gives a team up, for the database to rank, when changed postings cannot be applied', async () => {
    const teamId = await insertTeam(sql(), 'Refused');
    await replaceDocument(sql(), uploadFields(teamId, 'one'), 'one', textChunks(['w0q w1q']), undefined);
    const indexes = await loaded(teamId);
    const query = { reader: readers(teamId).ada, text: 'w0q', limit: 5, teamChunks: 2, averageLength: 2 };
    expect((await indexes.rank(query))?.chunks).toHaveLength(1);
    await replaceDocument(sql(), uploadFields(teamId, 'two'), 'two', textChunks(['w0q w2q']), undefined);
    const refuse = vi.spyOn(TeamLexicalIndex.prototype, 'setChunk').mockImplementation(() => {
      throw new RangeError('refused');
    });
    try {
      expect(await indexes.rank(query)).toBeUndefined();
      expect(indexes.holds(teamId)).toBe(false);
    } finally {
      refuse.mockRestore();
    }
  });

  it.runIf(testDatabaseKind() === 'postgres')(
    'sees a write whose transaction began before a search and committed after it',
    async () => {
      const teamId = await insertTeam(sql(), 'Out of order');
      const early = await replaceDocument(
        sql(),
        uploadFields(teamId, 'early'),
        'e',
        textChunks(['w0q w1q w9q']),
        undefined,
      );
      const indexes = await loaded(teamId);
      const privateList = await saveAccessList(sql(), teamId, peopleAccess('bo@example.com'));
      let commit: () => void = () => undefined;
      const mayCommit = new Promise<void>((resolve) => {
        commit = resolve;
      });
      let written: () => void = () => undefined;
      const wasWritten = new Promise<void>((resolve) => {
        written = resolve;
      });
      // A long transaction makes the early document private, and commits only when told.
      const slow = sql().transaction(async (transaction) => {
        await transaction.executeSql('UPDATE documents SET access_list_id = $2 WHERE id = $1', [
          early,
          privateList,
        ]);
        await spreadDocumentAccess(transaction, early);
        written();
        await mayCommit;
      });
      await wasWritten;
      // Meanwhile a later transaction stores a document and commits first; a search sees it.
      await replaceDocument(sql(), uploadFields(teamId, 'late'), 'l', textChunks(['w0q w2q']), undefined);
      const { teamOnly } = readers(teamId);
      expect((await bothWays(indexes, teamOnly, 'w0q')).memory).toHaveLength(2);
      commit();
      await slow;
      const { memory, database } = await bothWays(indexes, teamOnly, 'w0q');
      expect(memory).toHaveLength(1);
      expectSameRanking(memory, database);
    },
  );
});
