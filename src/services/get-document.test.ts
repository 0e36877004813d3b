import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { indexTexts, refusal, type SignedInUser, signedInUser } from '../../test/helpers/use-case-harness.js';
import { getDocument } from './get-document.js';

const HANDBOOK = [
  '# Handbook',
  '',
  '## Holidays',
  '',
  'Everyone gets 25 days of paid holiday each year.',
  '',
  '## Expenses',
  '',
  'Submit receipts within 30 days.',
].join('\n');

describe('getDocument', () => {
  let testApp: TestApp;
  let owner: SignedInUser;
  let documentId: number;
  beforeAll(async () => {
    testApp = await startTestApp({ worker: true });
    owner = await signedInUser(testApp);
    const job = await indexTexts(testApp, owner.caller, [
      { external_id: 'handbook', text: HANDBOOK, url: 'https://intranet/handbook' },
    ]);
    documentId = Number(job.files[0]?.document_id);
  });
  afterAll(() => testApp.close());

  it('answers the document with its text chunk by chunk, in order, under its headings', async () => {
    const page = await getDocument(testApp.runtime.deps, owner.caller, String(documentId));
    expect(page.document).toMatchObject({
      id: documentId,
      external_id: 'handbook',
      title: 'Handbook',
      url: 'https://intranet/handbook',
      status: 'indexed',
    });
    expect(page.chunks.map((chunk) => chunk.position)).toEqual(page.chunks.map((_, index) => index));
    const text = page.chunks.map((chunk) => chunk.text).join('\n');
    expect(text.indexOf('25 days')).toBeGreaterThanOrEqual(0);
    expect(text.indexOf('30 days')).toBeGreaterThan(text.indexOf('25 days'));
    expect(page.chunks.some((chunk) => JSON.stringify(chunk.heading_path).includes('Holidays'))).toBe(true);
  });

  it('is not_found for another team, an unknown id and an id that is no number', async () => {
    const { deps } = testApp.runtime;
    const stranger = await signedInUser(testApp);
    await refusal(getDocument(deps, stranger.caller, String(documentId)), 'not_found');
    await refusal(getDocument(deps, owner.caller, String(documentId + 1000)), 'not_found');
    await refusal(getDocument(deps, owner.caller, 'handbook'), 'not_found');
  });
});
