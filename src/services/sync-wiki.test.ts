import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeConfluenceServer } from '../../test/fakes/fake-confluence-server.js';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import {
  refusal,
  type SignedInUser,
  signedInUser,
  waitForIndexJob,
} from '../../test/helpers/use-case-harness.js';
import { listDocuments } from './list-documents.js';
import { saveWikiConfig } from './save-wiki-config.js';
import { queueDueWikiSyncs, syncWikiConnector } from './sync-wiki.js';

const USERNAME = 'bo@acme.com';
const page = (title: string) => ({
  title,
  storageBody: `<h1>${title}</h1><p>About ${title.toLowerCase()}.</p>`,
});

describe('syncWikiConnector and queueDueWikiSyncs', () => {
  let wiki: FakeConfluenceServer;
  let testApp: TestApp;
  let owner: SignedInUser;
  let connectorId: number;
  beforeAll(async () => {
    wiki = await FakeConfluenceServer.start({ flavour: 'cloud', username: USERNAME });
    wiki.addSpace('OPS', 'Operations');
    testApp = await startTestApp({
      env: { WIKI_ALLOWED_HOSTS: '127.0.0.1', WIKI_ALLOW_PRIVATE_NETWORK: 'true' },
      worker: true,
    });
    owner = await signedInUser(testApp);
  });
  afterAll(async () => {
    await testApp.close();
    await wiki.close();
  });

  const titles = async () =>
    (
      await listDocuments(testApp.runtime.deps, owner.caller, { limit: 50, offset: 0, source: 'wiki' })
    ).documents
      .map((document) => document.title)
      .sort();

  it('syncs the team’s wiki now: new pages are added and removed ones deleted', async () => {
    const { deps } = testApp.runtime;
    const runbooks = wiki.putPage('OPS', page('Runbooks'));
    const saved = await saveWikiConfig(deps, owner.caller, {
      wikiApiToken: wiki.apiToken,
      wikiUsername: USERNAME,
      wikiSpaceKey: 'OPS',
      wikiBaseUrl: wiki.baseUrl,
    });
    connectorId = saved.connector.id;
    await waitForIndexJob(testApp, owner.caller, saved.sync.result_id);
    expect(await titles()).toEqual(['Runbooks']);

    wiki.putPage('OPS', page('Backups'));
    wiki.removePage(runbooks.id);
    const sync = await syncWikiConnector(deps, owner.caller, 'confluence', String(connectorId));
    expect(sync.result_ready).toBe(false);
    const job = await waitForIndexJob(testApp, owner.caller, sync.result_id);
    expect(job).toMatchObject({ status: 'completed', kind: 'wiki', connector_id: connectorId });
    expect(await titles()).toEqual(['Backups']);
  });

  it('is not_found for another team’s connector, another slug or an unknown id', async () => {
    const { deps } = testApp.runtime;
    const stranger = await signedInUser(testApp);
    const id = String(connectorId);
    await refusal(syncWikiConnector(deps, stranger.caller, 'wiki', id), 'not_found');
    await refusal(syncWikiConnector(deps, owner.caller, 'googledrive', id), 'not_found');
    await refusal(syncWikiConnector(deps, owner.caller, 'wiki', String(connectorId + 100)), 'not_found');
  });

  it('queues the scheduled sync only of connectors not synced within the interval', async () => {
    const { deps } = testApp.runtime;
    // Just synced: not due within an hour.
    expect(await queueDueWikiSyncs(deps, 60)).toBe(0);
    wiki.putPage('OPS', page('Alerts'));
    expect(await queueDueWikiSyncs(deps, 0)).toBe(1);
    const { rows } = await testApp.runtime.database.sql.executeSql(
      `SELECT id FROM index_jobs WHERE connector_id = $1 ORDER BY created_at DESC LIMIT 1`,
      [connectorId],
    );
    await waitForIndexJob(testApp, owner.caller, String(rows[0]?.id));
    expect(await titles()).toEqual(['Alerts', 'Backups']);
  });

  it('is for owners and admins: a member cannot start a sync (403)', async () => {
    const { deps } = testApp.runtime;
    const refused = await refusal(
      syncWikiConnector(deps, { ...owner.caller, role: 'member' }, 'wiki', String(connectorId)),
      'forbidden',
    );
    expect(refused.message).toContain('owner and admins');
  });
});
