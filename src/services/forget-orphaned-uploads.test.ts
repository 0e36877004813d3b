import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { signedInUser } from '../../test/helpers/use-case-harness.js';
import { forgetOrphanedUploads } from './forget-orphaned-uploads.js';
import { storeUpload, uploadFiles } from './upload-documents.js';

const HOUR = 3600 * 1000;

async function* bytesOf(text: string): AsyncIterable<Uint8Array> {
  yield new TextEncoder().encode(text);
}

describe('forgetOrphanedUploads', () => {
  // No worker: a queued job keeps waiting for its files.
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('deletes old stored uploads no pending job needs, and keeps the ones a job waits for', async () => {
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    const queuedFile = await storeUpload(deps, bytesOf('# Plan\n\nThe plan.'), () => {});
    const orphan = await storeUpload(deps, bytesOf('# Left over\n\nNo job wants this.'), () => {});
    await uploadFiles(deps, caller, [
      { externalId: 'plan.md', fileName: 'plan.md', mimeType: 'text/markdown', stored: queuedFile },
    ]);
    const at = (offsetMs: number) => ({ ...deps, now: () => new Date(Date.now() + offsetMs) });

    // Younger than an hour: a request may still be streaming its other files in.
    expect(await forgetOrphanedUploads(at(0))).toBe(0);
    expect(await deps.uploads.read(orphan.key)).toBeDefined();

    expect(await forgetOrphanedUploads(at(2 * HOUR))).toBe(1);
    expect(await deps.uploads.read(orphan.key)).toBeUndefined();
    expect(new TextDecoder().decode(await deps.uploads.read(queuedFile.key))).toBe('# Plan\n\nThe plan.');
    expect(await forgetOrphanedUploads(at(2 * HOUR))).toBe(0);
  });
});
