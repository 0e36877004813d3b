import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { indexTexts, type SignedInUser, signedInUser } from '../../test/helpers/use-case-harness.js';
import { listDocuments } from './list-documents.js';

describe('listDocuments', () => {
  let testApp: TestApp;
  let owner: SignedInUser;
  beforeAll(async () => {
    testApp = await startTestApp({ worker: true });
    owner = await signedInUser(testApp);
    // One upload after another: files of one job are stored concurrently, in no set order.
    for (const name of ['alpha', 'bravo', 'charlie', 'delta']) {
      await indexTexts(testApp, owner.caller, [
        { external_id: name, title: name, text: `The ${name} notes.` },
      ]);
    }
  });
  afterAll(() => testApp.close());

  it('lists the team’s documents newest first, a page at a time, with their last job', async () => {
    const { deps } = testApp.runtime;
    const first = await listDocuments(deps, owner.caller, { limit: 2, offset: 0 });
    expect(first).toMatchObject({ total: 4, limit: 2, offset: 0 });
    expect(first.documents.map((document) => document.external_id)).toEqual(['delta', 'charlie']);
    expect(first.documents[0]).toMatchObject({
      source: 'upload',
      status: 'indexed',
      chunks: 1,
      last_job: { status: 'indexed' },
    });
    const second = await listDocuments(deps, owner.caller, { limit: 2, offset: 2 });
    expect(second.documents.map((document) => document.external_id)).toEqual(['bravo', 'alpha']);
  });

  it('filters by source', async () => {
    const { deps } = testApp.runtime;
    expect((await listDocuments(deps, owner.caller, { limit: 10, offset: 0, source: 'upload' })).total).toBe(
      4,
    );
    expect(await listDocuments(deps, owner.caller, { limit: 10, offset: 0, source: 'wiki' })).toMatchObject({
      total: 0,
      documents: [],
    });
  });

  it('shows another team nothing of this team’s documents', async () => {
    const stranger = await signedInUser(testApp);
    expect(
      await listDocuments(testApp.runtime.deps, stranger.caller, { limit: 10, offset: 0 }),
    ).toMatchObject({
      total: 0,
      documents: [],
    });
  });
});
