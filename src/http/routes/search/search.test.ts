import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  registerUser,
  startTestApp,
  type TestApp,
  uploadDocuments,
} from '../../../../test/helpers/test-app.js';

type Registered = Awaited<ReturnType<typeof registerUser>>;

interface Result {
  document_id: number;
  external_id: string;
  title: string;
  url: string | null;
  source: string;
  chunk_id: number;
  text: string;
  score: number;
}

const TEAM_DOCUMENTS = [
  {
    external_id: 'espresso',
    title: 'Espresso machine care',
    text: 'Descale the espresso machine every month. Hard water leaves limescale in the boiler, which slows the pump.',
    url: 'https://wiki.example.com/espresso',
  },
  {
    external_id: 'kettle',
    title: 'Kitchen rules',
    text: 'The kettle is shared. Clean the kitchen after lunch. The machine room is locked at night.',
  },
  {
    external_id: 'error-4021',
    title: 'Billing runbook',
    text: 'When the billing export fails with ERR-4021 the ledger lock is stale: release it and retry the export.',
  },
  {
    external_id: 'error-4022',
    title: 'Billing runbook, part two',
    text: 'ERR-4022 means the billing export found no invoices for the period. Nothing to do.',
  },
  {
    external_id: 'learning-phrase',
    title: 'Training notes',
    text: 'Our machine learning models are retrained weekly on the support tickets.',
  },
  {
    external_id: 'learning-apart',
    title: 'Onboarding',
    text: 'Learning the coffee machine takes a day; learning the billing system takes a month.',
  },
];

describe('POST /v1/search', () => {
  let testApp: TestApp;
  let user: Registered;
  let other: Registered;

  async function upload(as: Registered, documents: unknown[]) {
    const job = await uploadDocuments(testApp.app, as.token, documents);
    expect(
      job.files.every((file) => file.status === 'indexed'),
      JSON.stringify(job.files),
    ).toBe(true);
  }

  async function search(as: Registered, body: Record<string, unknown>) {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v1/search',
      headers: bearer(as.token),
      payload: body,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    return (response.json() as { results: Result[] }).results;
  }

  beforeAll(async () => {
    testApp = await startTestApp({ worker: true });
    user = await registerUser(testApp.app);
    other = await registerUser(testApp.app);
    await upload(user, TEAM_DOCUMENTS);
    // The other team's document matches the espresso question better than anything of ours.
    await upload(other, [
      {
        external_id: 'secret-espresso',
        title: 'Espresso machine descaling limescale boiler',
        text: 'How often to descale the espresso machine: descale the espresso machine boiler limescale monthly.',
      },
    ]);
  });
  afterAll(async () => {
    await testApp.close();
  });

  it('ranks the best-matching chunk of the caller team first, with its document', async () => {
    const results = await search(user, { query: 'how often should I descale the espresso machine?' });
    expect(results[0]).toMatchObject({
      external_id: 'espresso',
      title: 'Espresso machine care',
      url: 'https://wiki.example.com/espresso',
      source: 'upload',
    });
    expect(results[0]?.text).toContain('Descale the espresso machine every month.');
    expect(results.map((result) => result.score)).toEqual(
      [...results.map((result) => result.score)].sort((a, b) => b - a),
    );
  });

  it("never returns another team's chunks, even when they match better", async () => {
    const results = await search(user, { query: 'espresso machine descaling limescale boiler', top_k: 100 });
    expect(results.length).toBeGreaterThan(0);
    expect(results.map((result) => result.external_id)).not.toContain('secret-espresso');
    const theirs = await search(other, { query: 'kettle kitchen billing export', top_k: 100 });
    expect(theirs).toEqual([]);
  });

  it('weighs rare words above common ones (BM25 IDF, which ts_rank lacks)', async () => {
    // "machine" is in four documents, "limescale" in one: the one with the rare word wins even
    // though another says "machine" as often.
    const results = await search(user, { query: 'machine limescale' });
    expect(results[0]?.external_id).toBe('espresso');
  });

  it('matches an exact identifier before near misses', async () => {
    const results = await search(user, { query: 'ERR-4021' });
    expect(results[0]?.external_id).toBe('error-4021');
    const other = await search(user, { query: 'what does ERR-4022 mean' });
    expect(other[0]?.external_id).toBe('error-4022');
  });

  it('keeps only chunks containing a quoted phrase, words in order', async () => {
    const loose = await search(user, { query: 'machine learning' });
    expect(loose.map((result) => result.external_id)).toEqual(
      expect.arrayContaining(['learning-phrase', 'learning-apart']),
    );
    const quoted = await search(user, { query: '"machine learning"' });
    expect(quoted.map((result) => result.external_id)).toEqual(['learning-phrase']);
    const curly = await search(user, { query: 'retrained “machine learning” models' });
    expect(curly.map((result) => result.external_id)).toEqual(['learning-phrase']);
  });

  it('honours top_k and the source and connector filters', async () => {
    expect(await search(user, { query: 'billing export machine', top_k: 2 })).toHaveLength(2);
    expect(await search(user, { query: 'billing export', sources: ['wiki'] })).toEqual([]);
    const uploads = await search(user, { query: 'billing export', sources: ['upload'] });
    expect(uploads.length).toBeGreaterThan(0);
    expect(await search(user, { query: 'billing export', connector_ids: [999_999] })).toEqual([]);
  });

  it('takes the filters under the names clients use, flat or nested in `filters`', async () => {
    const all = await search(user, { query: 'billing export' });
    expect(all.length).toBeGreaterThan(0);
    for (const filter of [{ source_type: 'confluence' }, { source: 'drive' }, { source_types: ['wiki'] }]) {
      expect(await search(user, { query: 'billing export', ...filter }), JSON.stringify(filter)).toEqual([]);
    }
    expect(await search(user, { query: 'billing export', filters: { source_types: ['upload'] } })).toEqual(
      all,
    );
    expect(await search(user, { query: 'billing export', source: ['uploads', 'wiki'] })).toEqual(all);
    expect(await search(user, { query: 'billing export', connector_id: 999_999 })).toEqual([]);
    expect(await search(user, { query: 'billing export', filters: { connector_ids: [999_999] } })).toEqual(
      [],
    );
    const unknown = await testApp.app.inject({
      method: 'POST',
      url: '/v1/search',
      headers: bearer(user.token),
      payload: { query: 'billing export', source_type: 'dropbox' },
    });
    expect(unknown.statusCode).toBe(422);
  });

  it('answers an empty list for a query of stop words only, or nothing known', async () => {
    expect(await search(user, { query: 'the and of' })).toEqual([]);
    expect(await search(user, { query: 'zyxwvut' })).toEqual([]);
  });

  it('refuses a dense search when embeddings are off, and bad bodies with 422', async () => {
    const dense = await testApp.app.inject({
      method: 'POST',
      url: '/v1/search',
      headers: bearer(user.token),
      payload: { query: 'espresso', mode: 'dense' },
    });
    expect(dense.statusCode).toBe(400);
    expect(dense.json()).toEqual({ detail: expect.stringContaining('EMBEDDING_PROVIDER') });
    const invalid = await testApp.app.inject({
      method: 'POST',
      url: '/v1/search',
      headers: bearer(user.token),
      payload: { top_k: 101, mode: 'fuzzy' },
    });
    expect(invalid.statusCode).toBe(422);
    const locs = (invalid.json() as { detail: { loc: unknown[] }[] }).detail.map((issue) => issue.loc);
    expect(locs).toEqual(
      expect.arrayContaining([
        ['body', 'query'],
        ['body', 'top_k'],
        ['body', 'mode'],
      ]),
    );
  });

  it('asks who is calling', async () => {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v1/search',
      payload: { query: 'espresso' },
    });
    expect(response.statusCode).toBe(401);
  });
});
