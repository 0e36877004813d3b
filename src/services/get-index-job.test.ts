import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { indexTexts, refusal, type SignedInUser, signedInUser } from '../../test/helpers/use-case-harness.js';
import { getIndexJob } from './get-index-job.js';
import { uploadTextDocuments } from './upload-documents.js';

describe('getIndexJob', () => {
  let testApp: TestApp;
  let owner: SignedInUser;
  beforeAll(async () => {
    testApp = await startTestApp({ worker: true });
    owner = await signedInUser(testApp);
  });
  afterAll(() => testApp.close());

  it('reports a finished job with its progress and each file’s outcome', async () => {
    const job = await indexTexts(testApp, owner.caller, [
      { external_id: 'policy', title: 'Policy', text: 'Badges are collected at reception.' },
      { external_id: 'empty', text: '' },
    ]);
    const view = await getIndexJob(testApp.runtime.deps, owner.caller, job.result_id);
    expect(view).toMatchObject({
      result_id: job.result_id,
      result_ready: true,
      status: 'completed',
      kind: 'upload',
      progress: { total: 2, indexed: 1, skipped: 1, failed: 0 },
      error: null,
      finished_at: expect.any(String),
    });
    expect(view.files).toEqual([
      expect.objectContaining({
        id: 'policy',
        status: 'indexed',
        chunks: 1,
        document_id: expect.any(Number),
      }),
      expect.objectContaining({ id: 'empty', status: 'skipped', reason: 'empty', chunks: 0 }),
    ]);
  });

  it('narrows to one kind of job when asked', async () => {
    const { deps } = testApp.runtime;
    const queued = await uploadTextDocuments(deps, owner.caller, [{ external_id: 'x', text: 'Some text.' }]);
    expect((await getIndexJob(deps, owner.caller, queued.result_id, 'upload')).kind).toBe('upload');
    await refusal(getIndexJob(deps, owner.caller, queued.result_id, 'wiki'), 'not_found');
  });

  it('is not_found for another team’s job, an unknown id and a malformed one', async () => {
    const { deps } = testApp.runtime;
    const queued = await uploadTextDocuments(deps, owner.caller, [{ external_id: 'y', text: 'More text.' }]);
    const stranger = await signedInUser(testApp);
    const theirs = await refusal(getIndexJob(deps, stranger.caller, queued.result_id), 'not_found');
    expect(theirs.message).toBe('Job not found');
    await refusal(getIndexJob(deps, owner.caller, randomUUID()), 'not_found');
    await refusal(getIndexJob(deps, owner.caller, 'not-a-uuid'), 'not_found');
  });
});
