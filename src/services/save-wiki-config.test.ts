import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeConfluenceServer } from '../../test/fakes/fake-confluence-server.js';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { refusal, signedInUser, waitForIndexJob } from '../../test/helpers/use-case-harness.js';
import { listConnectors } from './list-connectors.js';
import { saveWikiConfig } from './save-wiki-config.js';
import { searchDocuments } from './search-documents.js';

const USERNAME = 'ann@acme.com';

describe('saveWikiConfig', () => {
  let wiki: FakeConfluenceServer;
  let testApp: TestApp;
  beforeAll(async () => {
    wiki = await FakeConfluenceServer.start({ flavour: 'cloud', username: USERNAME });
    wiki.addSpace('ENG', 'Engineering');
    wiki.putPage('ENG', {
      title: 'Deployments',
      storageBody: '<h1>Deployments</h1><p>We deploy on Tuesdays.</p>',
    });
    wiki.putPage('ENG', {
      title: 'Incidents',
      storageBody: '<h1>Incidents</h1><p>Page the on-call engineer.</p>',
    });
    testApp = await startTestApp({
      env: { WIKI_ALLOWED_HOSTS: '127.0.0.1', WIKI_ALLOW_PRIVATE_NETWORK: 'true' },
      worker: true,
    });
  });
  afterAll(async () => {
    await testApp.close();
    await wiki.close();
  });

  const input = (overrides: Record<string, string> = {}) => ({
    wikiApiToken: wiki.apiToken,
    wikiUsername: USERNAME,
    wikiSpaceKey: 'ENG',
    wikiBaseUrl: wiki.baseUrl,
    ...overrides,
  });

  it('checks the space, saves the team’s wiki connector (token sealed) and syncs the space', async () => {
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    const saved = await saveWikiConfig(deps, caller, input());
    expect(saved.created).toBe(true);
    expect(saved.connector).toMatchObject({
      slug: 'wiki',
      team_id: caller.teamId,
      config: { base_url: wiki.baseUrl, username: USERNAME, space_key: 'ENG', auth_scheme: 'basic' },
    });
    expect(JSON.stringify(saved)).not.toContain(wiki.apiToken);
    const job = await waitForIndexJob(testApp, caller, saved.sync.result_id);
    expect(job).toMatchObject({ status: 'completed', kind: 'wiki', progress: { indexed: 2 } });
    const { results } = await searchDocuments(deps, caller, { query: 'deploy Tuesdays', topK: 3 });
    expect(results[0]).toMatchObject({ title: 'Deployments', source: 'wiki' });

    // Saving again replaces the one connector of the team.
    const again = await saveWikiConfig(deps, caller, input());
    expect(again.created).toBe(false);
    expect(again.connector.id).toBe(saved.connector.id);
    await waitForIndexJob(testApp, caller, again.sync.result_id);
    expect((await listConnectors(deps, caller)).connectors.map((connector) => connector.id)).toEqual([
      saved.connector.id,
    ]);
  });

  it('saves nothing when the wiki rejects the token or has no such space', async () => {
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    const rejected = await refusal(
      saveWikiConfig(deps, caller, input({ wikiApiToken: 'wrong-token' })),
      'bad_request',
    );
    expect(rejected.message).toContain('Wiki credentials rejected');
    const missing = await refusal(
      saveWikiConfig(deps, caller, input({ wikiSpaceKey: 'NOPE' })),
      'bad_request',
    );
    expect(missing.message).toContain('Wiki space not found');
    expect((await listConnectors(deps, caller)).connectors).toEqual([]);
  });

  it('needs the wiki’s address when the service has no WIKI_BASE_URL', async () => {
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    const error = await refusal(
      saveWikiConfig(deps, caller, { ...input(), wikiBaseUrl: null }),
      'validation',
    );
    expect(error.options.issues?.[0]?.loc).toEqual(['body', 'wikiBaseUrl']);
  });

  it('is for owners and admins: a member changes no connection (403), an admin may', async () => {
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    const refused = await refusal(saveWikiConfig(deps, { ...caller, role: 'member' }, input()), 'forbidden');
    expect(refused.message).toContain('Confluence');
    expect((await listConnectors(deps, caller)).connectors).toEqual([]);
    const saved = await saveWikiConfig(deps, { ...caller, role: 'admin' }, input());
    await waitForIndexJob(testApp, caller, saved.sync.result_id);
  });
});
