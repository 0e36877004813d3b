import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  joinedMember,
  registerUser,
  startTestApp,
  type TestApp,
  uploadDocuments,
} from '../../test/helpers/test-app.js';
import { teamReader } from '../access.js';
import { HashingEmbeddingModel } from '../adapters/embeddings/hashing-embedding-model.js';
import type { SqlConnection } from '../db/sql-connection.js';
import { MEMORY_INDEX_LOADED } from './lexical-index/team-lexical-indexes.js';
import { PostgresTeamSearch } from './team-search.js';

type Registered = Awaited<ReturnType<typeof registerUser>>;

const TOPICS = ['invoice', 'espresso', 'deploy', 'holiday', 'laptop', 'payroll', 'backup', 'security'];

function documents(prefix: string, count: number) {
  return Array.from({ length: count }, (_, index) => {
    const topic = TOPICS[index % TOPICS.length] ?? 'misc';
    return {
      external_id: `${prefix}-${index}`,
      title: `${topic} note ${index}`,
      text: `The ${topic} procedure, revision ${index}: ask the ${topic} owner, then file the ${topic} form number ${index}.`,
    };
  });
}

describe('hybrid search with embeddings on', () => {
  let testApp: TestApp;
  let small: Registered;
  let large: Registered;

  async function upload(as: Registered, items: unknown[]) {
    await uploadDocuments(testApp.app, as.token, items);
  }

  beforeAll(async () => {
    testApp = await startTestApp({
      env: { EMBEDDING_PROVIDER: 'hashing', EMBEDDING_DIMENSIONS: '64' },
      worker: true,
    });
    small = await registerUser(testApp.app);
    large = await registerUser(testApp.app);
    await upload(small, documents('small', 24));
    await upload(large, documents('large', 400));
  }, 900_000);
  afterAll(async () => {
    await testApp.close();
  });

  it('answers dense and hybrid searches from the caller team only', async () => {
    for (const mode of ['dense', 'hybrid', 'lexical']) {
      const response = await testApp.app.inject({
        method: 'POST',
        url: '/v1/search',
        headers: bearer(small.token),
        payload: { query: 'espresso procedure owner', top_k: 5, mode },
      });
      expect(response.statusCode, response.body).toBe(200);
      const { results } = response.json() as { results: { external_id: string; text: string }[] };
      expect(results, mode).toHaveLength(5);
      expect(
        results.every((result) => result.external_id.startsWith('small-')),
        mode,
      ).toBe(true);
      expect(results[0]?.text, mode).toContain('espresso');
    }
  });

  it('gives a member only what they may open, with a full top_k, in dense and hybrid ranking too', async () => {
    // A team's owner shares notes, invites a member, then brings in private notes on the same
    // topic (closer to the query than most shared ones): the access filter must act inside the
    // vector walk, before ranking, or the member's top_k would come back short.
    const owner = await registerUser(testApp.app);
    await upload(owner, documents('shared', 160));
    const memberToken = await joinedMember(testApp.app, owner.token);
    const privateNotes = Array.from({ length: 60 }, (_, index) => ({
      external_id: `private-${index}`,
      title: `espresso procedure ${index}`,
      text: `The espresso procedure owner keeps the espresso procedure, revision ${index}.`,
      visibility: 'private',
    }));
    await upload(owner, privateNotes);
    // One shared note is made private afterwards: it leaves the member's vectors too.
    await upload(owner, [{ ...documents('shared', 160)[1], visibility: 'private' }]);

    const searchAs = async (token: string, mode: string) => {
      const response = await testApp.app.inject({
        method: 'POST',
        url: '/v1/search',
        headers: bearer(token),
        payload: { query: 'espresso procedure owner', top_k: 10, mode },
      });
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as { results: { external_id: string }[] }).results.map(
        (result) => result.external_id,
      );
    };
    // The private notes are what the owner's vectors find first.
    expect((await searchAs(owner.token, 'dense')).some((id) => id.startsWith('private-'))).toBe(true);
    for (const mode of ['dense', 'hybrid', 'lexical']) {
      const member = await searchAs(memberToken, mode);
      expect(member, mode).toHaveLength(10);
      expect(new Set(member).size, mode).toBe(10);
      expect(
        member.every((id) => id.startsWith('shared-') && id !== 'shared-1'),
        `${mode}: ${member.join(', ')}`,
      ).toBe(true);
    }
  });

  it('fills in from vectors, below every lexical match, when too few chunks share the words', async () => {
    const search = testApp.runtime.deps.search;
    // No chunk has this word: BM25 finds nothing, the vectors still answer (default weight 0).
    const none = await search.search({
      reader: teamReader(small.teamId),
      query: 'qwertyuiop',
      topK: 5,
      mode: 'lexical',
    });
    expect(none).toEqual([]);
    const filled = await search.search({ reader: teamReader(small.teamId), query: 'qwertyuiop', topK: 5 });
    expect(filled).toHaveLength(5);
    expect(filled.every((hit) => hit.externalId.startsWith('small-'))).toBe(true);
    // The chunks that mention espresso stay first, in BM25's order; vectors add the rest.
    const lexical = await search.search({
      reader: teamReader(small.teamId),
      query: 'espresso',
      topK: 24,
      mode: 'lexical',
    });
    const hybrid = await search.search({ reader: teamReader(small.teamId), query: 'espresso', topK: 24 });
    expect(lexical.length).toBeGreaterThan(0);
    expect(lexical.length).toBeLessThan(24);
    expect(hybrid.slice(0, lexical.length).map((hit) => hit.chunkId)).toEqual(
      lexical.map((hit) => hit.chunkId),
    );
    expect(hybrid).toHaveLength(24);
    // A quoted phrase is a constraint: nothing without it fills in.
    const phrase = await search.search({
      reader: teamReader(small.teamId),
      query: '"espresso procedure"',
      topK: 24,
    });
    expect(phrase.length).toBe(lexical.length);
    expect(phrase.every((hit) => hit.text.includes('espresso procedure'))).toBe(true);
  });

  it('gives a small team its full top_k from the HNSW index, the tenant filter inside the scan', async () => {
    const model = new HashingEmbeddingModel({ dimensions: 64 });
    const settings = { denseWeight: 1, rrfK: 60, efSearch: 10 };
    // Every team through the graph, even this small one: 24 of 424 vectors are the caller's.
    const throughIndex = new PostgresTeamSearch(testApp.runtime.database.sql, model, {
      ...settings,
      exactScanMaxChunks: 0,
    });
    const exact = new PostgresTeamSearch(testApp.runtime.database.sql, model, settings);
    const request = {
      reader: teamReader(small.teamId),
      query: 'laptop form',
      topK: 20,
      mode: 'dense' as const,
    };
    const viaIndex = await throughIndex.search(request);
    expect(viaIndex).toHaveLength(20);
    expect(viaIndex.every((hit) => hit.externalId.startsWith('small-'))).toBe(true);
    const exactIds = new Set((await exact.search(request)).map((hit) => hit.chunkId));
    const overlap = viaIndex.filter((hit) => exactIds.has(hit.chunkId)).length;
    expect(overlap).toBeGreaterThanOrEqual(18);
  });

  it('opens every connection with the HNSW settings, so a vector query needs no transaction', async () => {
    const { sql } = testApp.runtime.database;
    const settings = await Promise.all(
      Array.from({ length: 4 }, () =>
        sql.executeSql(
          `SELECT current_setting('hnsw.iterative_scan') AS scan, current_setting('hnsw.ef_search') AS ef`,
        ),
      ),
    );
    for (const { rows } of settings) expect(rows[0]).toEqual({ scan: 'strict_order', ef: '100' });
    const model = new HashingEmbeddingModel({ dimensions: 64 });
    const throughSession = new PostgresTeamSearch(sql, model, {
      denseWeight: 1,
      rrfK: 60,
      efSearch: 100,
      sessionEfSearch: 100,
      exactScanMaxChunks: 0,
    });
    const hits = await throughSession.search({
      reader: teamReader(small.teamId),
      query: 'laptop form',
      topK: 20,
      mode: 'dense',
    });
    expect(hits).toHaveLength(20);
    expect(hits.every((hit) => hit.externalId.startsWith('small-'))).toBe(true);
  });

  it('leaves vectors out of hybrid ranking when their weight is 0', async () => {
    const model = new HashingEmbeddingModel({ dimensions: 64 });
    const lexicalOnly = new PostgresTeamSearch(testApp.runtime.database.sql, model, {
      denseWeight: 0,
      rrfK: 60,
      efSearch: 40,
    });
    const request = { reader: teamReader(large.teamId), query: 'payroll form number 13', topK: 10 };
    const hybrid = await lexicalOnly.search(request);
    const lexical = await lexicalOnly.search({ ...request, mode: 'lexical' });
    expect(hybrid.map((hit) => hit.chunkId)).toEqual(lexical.map((hit) => hit.chunkId));
  });

  it('ranks a team held in memory with one statement, the changes with the reader’s lists: the hits’ text was read with the postings', async () => {
    const database = testApp.runtime.database.sql;
    const statements: string[] = [];
    const counting: SqlConnection = {
      runsOnMainThread: database.runsOnMainThread,
      executeSql: (text, values) => {
        statements.push(text);
        return database.executeSql(text, values);
      },
      transaction: (work) => database.transaction(work),
    };
    let loaded: () => void = () => undefined;
    const isLoaded = new Promise<void>((resolve) => {
      loaded = resolve;
    });
    const logger = {
      info: (_details: object, message: string) => {
        if (message === MEMORY_INDEX_LOADED) loaded();
      },
      warn: () => undefined,
    };
    const search = new PostgresTeamSearch(
      counting,
      undefined,
      { denseWeight: 0, rrfK: 60, efSearch: 40, memoryIndexBytes: 64 * 1024 * 1024 },
      logger,
    );
    const request = { reader: teamReader(large.teamId), query: 'payroll form number 13', topK: 10 };
    // The first search is ranked by the database while the team's postings load.
    const fromDatabase = await search.search(request);
    await isLoaded;
    // Another search first: the load's last step may still be under way when it logs.
    await search.search({ ...request, query: 'espresso procedure' });
    statements.length = 0;
    const fromMemory = await search.search(request);
    expect(fromMemory.map((hit) => [hit.chunkId, hit.score.toFixed(9)])).toEqual(
      fromDatabase.map((hit) => [hit.chunkId, hit.score.toFixed(9)]),
    );
    expect(statements).toHaveLength(1);
    // The same search again: one statement, the same results.
    statements.length = 0;
    expect(await search.search(request)).toEqual(fromMemory);
    expect(statements).toHaveLength(1);
  });
});
