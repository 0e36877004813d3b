import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { indexTexts, refusal, signedInUser, waitForIndexJob } from '../../test/helpers/use-case-harness.js';
import { getDocument } from './get-document.js';
import { listDocuments } from './list-documents.js';
import {
  assertUploadableFile,
  storeUpload,
  uploadFiles,
  uploadItemsOf,
  uploadTextDocuments,
} from './upload-documents.js';

async function* bytesOf(text: string): AsyncIterable<Uint8Array> {
  yield new TextEncoder().encode(text);
}

describe('uploadTextDocuments and uploadFiles', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp({ worker: true });
  });
  afterAll(() => testApp.close());

  it('indexes JSON documents into the caller’s team; posting an external_id again replaces it', async () => {
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    const job = await indexTexts(testApp, caller, [
      { external_id: 'holidays', title: 'Holidays', text: 'Everyone gets 25 days of paid holiday.' },
      { external_id: 'untitled', text: '# Parking rules\n\nPark in bay 4.', url: 'https://intranet/parking' },
      { external_id: 'blank', text: '   ' },
    ]);
    expect(job).toMatchObject({ status: 'completed', kind: 'upload' });
    expect(Object.fromEntries(job.files.map((file) => [file.id, file.status]))).toEqual({
      holidays: 'indexed',
      untitled: 'indexed',
      blank: 'skipped',
    });
    const listed = await listDocuments(deps, caller, { limit: 10, offset: 0 });
    expect(
      listed.documents
        .map((document) => [document.external_id, document.title, document.status, document.chunks])
        .sort(),
    ).toEqual([
      ['blank', 'blank', 'skipped', 0],
      ['holidays', 'Holidays', 'indexed', 1],
      ['untitled', 'Parking rules', 'indexed', 1],
    ]);
    await indexTexts(testApp, caller, [
      { external_id: 'holidays', title: 'Holidays', text: 'Everyone gets 30 days.' },
    ]);
    const holidays = (await listDocuments(deps, caller, { limit: 10, offset: 0 })).documents.filter(
      (document) => document.external_id === 'holidays',
    );
    expect(holidays).toHaveLength(1);
    const page = await getDocument(deps, caller, String(holidays[0]?.id));
    expect(page.chunks.map((chunk) => chunk.text).join(' ')).toContain('30 days');
  });

  it('derives the titles of a large request a slice at a time, the event loop turning between slices', async () => {
    const documents = Array.from({ length: 200 }, (_, index) => ({
      external_id: `doc-${index}`,
      text: `# Title ${index}\n\nBody ${index}.`,
    }));
    // Counts the event loop's turns while the titles are derived.
    let turns = 0;
    let deriving = true;
    const turn = () => {
      if (!deriving) return;
      turns += 1;
      setImmediate(turn);
    };
    setImmediate(turn);
    const items = await uploadItemsOf(documents);
    deriving = false;
    expect(items.map((item) => item.name)).toEqual(documents.map((_, index) => `Title ${index}`));
    // 200 documents, 50 a turn: the loop turned between the four slices (derived at once, never).
    expect(turns).toBeGreaterThanOrEqual(3);
  });

  it("names a document by the client's title and derives none for it; an untitled one gets its text's", async () => {
    const items = await uploadItemsOf([
      { external_id: 'titled', title: ' Leave policy ', text: '# Holidays\n\nThirty days a year.' },
      { external_id: 'untitled', text: '# Holidays\n\nThirty days a year.' },
      { external_id: 'blank', title: '  ', text: 'Bikes go in the basement.' },
    ]);
    expect(items.map((item) => item.name)).toEqual(['Leave policy', 'Holidays', 'Bikes go in the basement.']);
    expect(items.map((item) => item.payload.fallbackTitle)).toEqual([
      undefined,
      'Holidays',
      'Bikes go in the basement.',
    ]);
  });

  it('refuses two documents of one external_id in a request, queuing nothing', async () => {
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    const error = await refusal(
      uploadTextDocuments(deps, caller, [
        { external_id: 'same', text: 'One.' },
        { external_id: 'same', text: 'Two.' },
      ]),
      'validation',
    );
    expect(error.options.issues?.[0]?.loc).toEqual(['body', 'documents', 1, 'external_id']);
    expect((await listDocuments(deps, caller, { limit: 10, offset: 0 })).total).toBe(0);
  });

  it('indexes stored files and deletes each once its job is done with it', async () => {
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    const stored = await storeUpload(
      deps,
      bytesOf('# Onboarding\n\nAsk Sam for a badge on day one.'),
      () => {},
    );
    const queued = await uploadFiles(deps, caller, [
      {
        externalId: 'onboarding.md',
        fileName: 'onboarding.md',
        mimeType: assertUploadableFile('onboarding.md', 'application/octet-stream'),
        stored,
      },
    ]);
    const job = await waitForIndexJob(testApp, caller, queued.result_id);
    expect(job.files).toMatchObject([{ id: 'onboarding.md', status: 'indexed' }]);
    const [document] = (await listDocuments(deps, caller, { limit: 10, offset: 0 })).documents;
    expect(document).toMatchObject({ title: 'Onboarding', mime_type: 'text/markdown' });
    expect(await deps.uploads.read(stored.key)).toBeUndefined();
  });

  it('refuses an unreadable file type and a request without files', async () => {
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    await refusal(
      Promise.resolve().then(() => assertUploadableFile('tool.exe', 'application/x-msdownload')),
      'unsupported_media_type',
    );
    await refusal(uploadFiles(deps, caller, []), 'validation');
  });
});
