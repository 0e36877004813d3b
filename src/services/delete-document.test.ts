import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { indexTexts, refusal, signedInUser } from '../../test/helpers/use-case-harness.js';
import { deleteDocument } from './delete-document.js';
import { getDocument } from './get-document.js';
import { listDocuments } from './list-documents.js';
import { searchDocuments } from './search-documents.js';

describe('deleteDocument', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp({ worker: true });
  });
  afterAll(() => testApp.close());

  it('deletes the document with its passages: no listing, page or search finds it any more', async () => {
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    const job = await indexTexts(testApp, caller, [
      { external_id: 'parking', title: 'Parking', text: 'Visitors park in the basement garage.' },
      { external_id: 'canteen', title: 'Canteen', text: 'The canteen opens at noon.' },
    ]);
    const parking = job.files.find((file) => file.id === 'parking')?.document_id;
    const search = () => searchDocuments(deps, caller, { query: 'basement garage', topK: 5 });
    expect((await search()).results.map((result) => result.external_id)).toContain('parking');

    await deleteDocument(deps, caller, String(parking));
    await refusal(getDocument(deps, caller, String(parking)), 'not_found');
    expect(
      (await listDocuments(deps, caller, { limit: 10, offset: 0 })).documents.map((d) => d.external_id),
    ).toEqual(['canteen']);
    expect((await search()).results.map((result) => result.external_id)).not.toContain('parking');
    await refusal(deleteDocument(deps, caller, String(parking)), 'not_found');
  });

  it('cannot delete another team’s document', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    const stranger = await signedInUser(testApp);
    const job = await indexTexts(testApp, owner.caller, [{ external_id: 'plan', text: 'The plan.' }]);
    const id = String(job.files[0]?.document_id);
    await refusal(deleteDocument(deps, stranger.caller, id), 'not_found');
    await refusal(deleteDocument(deps, stranger.caller, 'not-a-number'), 'not_found');
    expect((await getDocument(deps, owner.caller, id)).document.external_id).toBe('plan');
  });
});
