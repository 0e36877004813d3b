import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeConfluenceServer } from '../../test/fakes/fake-confluence-server.js';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import {
  refusal,
  type SignedInUser,
  signedInUser,
  waitForIndexJob,
} from '../../test/helpers/use-case-harness.js';
import { deleteConnector } from './delete-connector.js';
import { getConnector } from './get-connector.js';
import { getIndexJob } from './get-index-job.js';
import { getUserContext } from './get-user-context.js';
import { indexDriveFiles } from './index-drive-files.js';
import { listConnectors } from './list-connectors.js';
import { listDocuments } from './list-documents.js';
import { saveWikiConfig } from './save-wiki-config.js';
import { searchDocuments } from './search-documents.js';

const USERNAME = 'cy@acme.com';

describe('deleteConnector', () => {
  let wiki: FakeConfluenceServer;
  let testApp: TestApp;
  beforeAll(async () => {
    wiki = await FakeConfluenceServer.start({ flavour: 'cloud', username: USERNAME });
    wiki.addSpace('HR', 'People');
    wiki.putPage('HR', {
      title: 'Leave',
      storageBody: '<h1>Leave</h1><p>Parental leave lasts sixteen weeks.</p>',
    });
    testApp = await startTestApp({
      env: {
        WIKI_ALLOWED_HOSTS: '127.0.0.1',
        WIKI_ALLOW_PRIVATE_NETWORK: 'true',
        // Nothing listens there: a Drive job never finishes on its own before the deletion, nor leaves this host.
        GOOGLE_DRIVE_API_URL: 'http://127.0.0.1:9/',
      },
      worker: true,
    });
  });
  afterAll(async () => {
    await testApp.close();
    await wiki.close();
  });

  async function wikiConnector(user: SignedInUser): Promise<number> {
    const saved = await saveWikiConfig(testApp.runtime.deps, user.caller, {
      wikiApiToken: wiki.apiToken,
      wikiUsername: USERNAME,
      wikiSpaceKey: 'HR',
      wikiBaseUrl: wiki.baseUrl,
    });
    await waitForIndexJob(testApp, user.caller, saved.sync.result_id);
    return saved.connector.id;
  }

  it('deletes the connector with every document it brought: nothing lists or finds them', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    const id = await wikiConnector(owner);
    const search = () => searchDocuments(deps, owner.caller, { query: 'parental leave', topK: 3 });
    expect((await search()).results).toHaveLength(1);

    await deleteConnector(deps, owner.caller, 'confluence', String(id));
    await refusal(getConnector(deps, owner.caller, 'wiki', String(id)), 'not_found');
    expect((await listConnectors(deps, owner.caller)).connectors).toEqual([]);
    expect((await listDocuments(deps, owner.caller, { limit: 10, offset: 0 })).total).toBe(0);
    expect((await search()).results).toEqual([]);
    await refusal(deleteConnector(deps, owner.caller, 'wiki', String(id)), 'not_found');
  });

  it('ends the connector’s unfinished jobs', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    const queued = await indexDriveFiles(
      deps,
      owner.caller,
      {
        files: [
          { id: 'f', name: 'f.txt', type: 'file', url: 'https://drive.google.com/f', serviceId: 'google' },
        ],
        user_context: await getUserContext(deps, owner.caller),
      },
      'ya29.unused',
    );
    const { connectors } = await listConnectors(deps, owner.caller);
    await deleteConnector(deps, owner.caller, 'drive', String(connectors[0]?.id));
    const job = await getIndexJob(deps, owner.caller, queued.result_id);
    expect(job).toMatchObject({ status: 'failed', result_ready: true, error: 'The connector was deleted' });
  });

  it('cannot delete another team’s connector, nor one under another slug', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    const stranger = await signedInUser(testApp);
    const id = String(await wikiConnector(owner));
    await refusal(deleteConnector(deps, stranger.caller, 'wiki', id), 'not_found');
    await refusal(deleteConnector(deps, owner.caller, 'googledrive', id), 'not_found');
    await refusal(deleteConnector(deps, owner.caller, 'wiki', 'latest'), 'not_found');
    expect((await getConnector(deps, owner.caller, 'wiki', id)).document_count).toBe(1);
  });

  it('is for owners and admins: a member removes no connection (403), an admin may', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    const id = String(await wikiConnector(owner));
    const refused = await refusal(
      deleteConnector(deps, { ...owner.caller, role: 'member' }, 'wiki', id),
      'forbidden',
    );
    expect(refused.message).toContain('owner and admins');
    expect((await getConnector(deps, owner.caller, 'wiki', id)).document_count).toBe(1);
    await deleteConnector(deps, { ...owner.caller, role: 'admin' }, 'wiki', id);
    await refusal(getConnector(deps, owner.caller, 'wiki', id), 'not_found');
  });
});
