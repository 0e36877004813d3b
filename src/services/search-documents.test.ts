import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { indexTexts, type SignedInUser, signedInUser } from '../../test/helpers/use-case-harness.js';
import { searchDocuments } from './search-documents.js';

describe('searchDocuments', () => {
  let testApp: TestApp;
  let ours: SignedInUser;
  let theirs: SignedInUser;
  beforeAll(async () => {
    testApp = await startTestApp({ worker: true });
    ours = await signedInUser(testApp);
    theirs = await signedInUser(testApp);
    await indexTexts(testApp, ours.caller, [
      {
        external_id: 'holidays',
        title: 'Holidays',
        text: 'Every employee gets 25 days of paid holiday each year.',
        url: 'https://intranet/holidays',
      },
      {
        external_id: 'expenses',
        title: 'Expenses',
        text: 'Submit expense receipts within 30 days of purchase.',
      },
    ]);
    await indexTexts(testApp, theirs.caller, [
      {
        external_id: 'their-holidays',
        title: 'Their holidays',
        text: 'Every employee gets 40 days of paid holiday.',
      },
    ]);
  });
  afterAll(() => testApp.close());

  it('ranks the caller’s team’s passages, best first, with their documents', async () => {
    const { results } = await searchDocuments(testApp.runtime.deps, ours.caller, {
      query: 'paid holiday',
      topK: 5,
    });
    expect(results[0]).toMatchObject({
      external_id: 'holidays',
      title: 'Holidays',
      url: 'https://intranet/holidays',
      source: 'upload',
      text: expect.stringContaining('25 days'),
    });
    const scores = results.map((result) => result.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('never answers another team’s passages, and honours topK and the source filter', async () => {
    const { deps } = testApp.runtime;
    const ourResults = await searchDocuments(deps, ours.caller, {
      query: 'paid holiday days employee',
      topK: 10,
    });
    expect(ourResults.results.map((result) => result.external_id)).not.toContain('their-holidays');
    const theirResults = await searchDocuments(deps, theirs.caller, {
      query: 'paid holiday days employee',
      topK: 10,
    });
    expect(theirResults.results.map((result) => result.external_id)).toEqual(['their-holidays']);
    const one = await searchDocuments(deps, ours.caller, { query: 'days', topK: 1 });
    expect(one.results).toHaveLength(1);
    const wikiOnly = await searchDocuments(deps, ours.caller, {
      query: 'paid holiday',
      topK: 5,
      sources: ['wiki'],
    });
    expect(wikiOnly.results).toEqual([]);
  });
});
