import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVE_MIME_TYPES, FakeDriveServer } from '../../test/fakes/fake-drive-server.js';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import {
  refusal,
  type SignedInUser,
  signedInUser,
  waitForIndexJob,
} from '../../test/helpers/use-case-harness.js';
import { getConnector } from './get-connector.js';
import { getUserContext } from './get-user-context.js';
import { type DriveFileInput, indexDriveFiles } from './index-drive-files.js';
import { searchDocuments } from './search-documents.js';

function picked(id: string, name: string, type = 'document'): DriveFileInput {
  return { id, name, type, url: `https://drive.google.com/file/d/${id}/view`, serviceId: 'google' };
}

describe('indexDriveFiles', () => {
  let drive: FakeDriveServer;
  let testApp: TestApp;
  beforeAll(async () => {
    drive = await FakeDriveServer.start();
    testApp = await startTestApp({ env: { GOOGLE_DRIVE_API_URL: drive.url }, worker: true });
  });
  afterAll(async () => {
    await testApp.close();
    await drive.close();
  });

  async function index(user: SignedInUser, files: DriveFileInput[]) {
    const { deps } = testApp.runtime;
    const userContext = await getUserContext(deps, user.caller);
    return indexDriveFiles(deps, user.caller, { files, user_context: userContext }, drive.accessToken);
  }

  it('indexes the picked files with the caller’s token into the team’s Drive connector', async () => {
    const { deps } = testApp.runtime;
    const user = await signedInUser(testApp);
    const id = drive.addFile({
      name: 'Security policy',
      mimeType: DRIVE_MIME_TYPES.document,
      content: 'Laptops lock after five minutes without use.',
      parents: ['root'],
    });
    const queued = await index(user, [picked(id, 'Security policy'), picked(id, 'Security policy')]);
    const job = await waitForIndexJob(testApp, user.caller, queued.result_id);
    expect(job).toMatchObject({
      status: 'completed',
      kind: 'googledrive',
      progress: { total: 1, indexed: 1 },
    });
    const connector = await getConnector(deps, user.caller, 'googledrive', String(job.connector_id));
    expect(connector).toMatchObject({
      slug: 'googledrive',
      document_count: 1,
      files: [{ id, name: 'Security policy' }],
    });
    // The token was used for the job and is kept nowhere the connector shows.
    expect(JSON.stringify(connector)).not.toContain(drive.accessToken);
    const { results } = await searchDocuments(deps, user.caller, { query: 'laptops lock', topK: 3 });
    expect(results[0]).toMatchObject({ external_id: id, source: 'googledrive' });
  });

  it('uses one Drive connector per team however many times files are picked', async () => {
    const user = await signedInUser(testApp);
    const first = drive.addFile({
      name: 'a.txt',
      mimeType: 'text/plain',
      content: 'Alpha.',
      parents: ['root'],
    });
    const second = drive.addFile({
      name: 'b.txt',
      mimeType: 'text/plain',
      content: 'Bravo.',
      parents: ['root'],
    });
    const jobs = [];
    for (const id of [first, second]) {
      const queued = await index(user, [picked(id, `${id}.txt`, 'file')]);
      jobs.push(await waitForIndexJob(testApp, user.caller, queued.result_id));
    }
    expect(jobs[0]?.connector_id).toBe(jobs[1]?.connector_id);
    const connector = await getConnector(
      testApp.runtime.deps,
      user.caller,
      'drive',
      String(jobs[0]?.connector_id),
    );
    expect(connector.document_count).toBe(2);
  });

  it('refuses a user_context that is not the caller’s, queuing nothing', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    const intruder = await signedInUser(testApp);
    const ownerContext = await getUserContext(deps, owner.caller);
    await refusal(
      indexDriveFiles(
        deps,
        intruder.caller,
        { files: [picked('x', 'x')], user_context: ownerContext },
        drive.accessToken,
      ),
      'forbidden',
    );
    expect((await getUserContext(deps, intruder.caller)).connectors).toEqual([]);
  });
});
