import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { refusal, type SignedInUser, signedInUser } from '../../test/helpers/use-case-harness.js';
import { getConnector } from './get-connector.js';
import { getUserContext } from './get-user-context.js';
import { indexDriveFiles } from './index-drive-files.js';

const DRIVE_TOKEN = 'ya29.drive-token-kept-secret';

describe('getConnector', () => {
  // No worker: the picked files stay queued, as while a job is still running.
  let testApp: TestApp;
  let owner: SignedInUser;
  let connectorId: number;
  beforeAll(async () => {
    testApp = await startTestApp();
    owner = await signedInUser(testApp);
    const { deps } = testApp.runtime;
    const files = ['plan', 'budget'].map((id) => ({
      id,
      name: `${id}.txt`,
      type: 'file',
      url: `https://drive.google.com/file/d/${id}/view`,
      serviceId: 'google',
    }));
    const queued = await indexDriveFiles(
      deps,
      owner.caller,
      { files, user_context: await getUserContext(deps, owner.caller) },
      DRIVE_TOKEN,
    );
    const { rows } = await testApp.runtime.database.sql.executeSql(
      'SELECT connector_id FROM index_jobs WHERE id = $1',
      [queued.result_id],
    );
    connectorId = Number(rows[0]?.connector_id);
  });
  afterAll(() => testApp.close());

  it('shows the team’s connector with the files its job is still working on, and no secret', async () => {
    const view = await getConnector(testApp.runtime.deps, owner.caller, 'googledrive', String(connectorId));
    expect(view).toMatchObject({
      id: connectorId,
      slug: 'googledrive',
      team_id: owner.caller.teamId,
      document_count: 0,
      delegate_email: null,
      files: [
        { id: 'plan', name: 'plan.txt', status: 'queued', chunks: 0 },
        { id: 'budget', name: 'budget.txt', status: 'queued', chunks: 0 },
      ],
    });
    expect(JSON.stringify(view)).not.toContain(DRIVE_TOKEN);
  });

  it('takes the slug’s aliases in any case', async () => {
    const { deps } = testApp.runtime;
    for (const slug of ['drive', 'GoogleDrive', 'DRIVE']) {
      expect((await getConnector(deps, owner.caller, slug, String(connectorId))).id).toBe(connectorId);
    }
  });

  it('is not_found for another team, another slug, an unknown slug or id', async () => {
    const { deps } = testApp.runtime;
    const stranger = await signedInUser(testApp);
    const id = String(connectorId);
    const theirs = await refusal(getConnector(deps, stranger.caller, 'googledrive', id), 'not_found');
    expect(theirs.message).toBe('Connector not found');
    await refusal(getConnector(deps, owner.caller, 'wiki', id), 'not_found');
    await refusal(getConnector(deps, owner.caller, 'dropbox', id), 'not_found');
    await refusal(getConnector(deps, owner.caller, 'googledrive', String(connectorId + 100)), 'not_found');
    await refusal(getConnector(deps, owner.caller, 'googledrive', 'first'), 'not_found');
  });
});
