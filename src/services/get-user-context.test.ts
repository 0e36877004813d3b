import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { invitedMember, refusal, signedInUser } from '../../test/helpers/use-case-harness.js';
import type { Caller } from '../caller.js';
import { startWebChat } from './answer-web-chat.js';
import { getUserContext } from './get-user-context.js';
import { indexDriveFiles } from './index-drive-files.js';

describe('getUserContext', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  const indexDrive = (caller: Caller, context: Awaited<ReturnType<typeof getUserContext>>) =>
    indexDriveFiles(
      testApp.runtime.deps,
      caller,
      {
        files: [
          {
            id: 'doc-1',
            name: 'Plan',
            type: 'document',
            url: 'https://drive.google.com/d/doc-1',
            serviceId: 'google',
          },
        ],
        user_context: context,
      },
      'ya29.drive-token',
    );

  it('describes the caller: user, team, vector store and the team’s connectors by name', async () => {
    const { deps } = testApp.runtime;
    const { caller, body } = await signedInUser(testApp);
    const before = await getUserContext(deps, caller);
    expect(before).toMatchObject({
      id: caller.userId,
      email: caller.email,
      team_id: caller.teamId,
      is_active: true,
      connectors: [],
      vector_store: { id: (body.vector_store as { id: number }).id, namespaces: [`team-${caller.teamId}`] },
      // Everyone registering without an invitation owns a team of their own.
      role: 'owner',
    });
    // Picking Drive files makes the team's Drive connector (the job waits: this app has no worker).
    const queued = await indexDrive(caller, before);
    const job = await testApp.runtime.database.sql.executeSql(
      'SELECT connector_id FROM index_jobs WHERE id = $1',
      [queued.result_id],
    );
    const after = await getUserContext(deps, caller);
    expect(after.connectors).toEqual([{ name: 'googledrive', id: [Number(job.rows[0]?.connector_id)] }]);
  });

  it('is what a client sends back as user_context: accepted for its caller, refused for another', async () => {
    const { deps } = testApp.runtime;
    const ann = await signedInUser(testApp);
    const bo = await signedInUser(testApp);
    const annContext = await getUserContext(deps, ann.caller);
    const ask = (caller: Caller) =>
      startWebChat(deps, caller, { content: 'Anything?', user_context: annContext });
    await expect(ask(ann.caller)).resolves.toMatchObject({ chatId: expect.any(String) });
    const refused = await refusal(ask(bo.caller), 'forbidden');
    expect(refused.message).toContain('user_context');
    // Another team's context never lists this team's connectors.
    await indexDrive(ann.caller, annContext);
    expect((await getUserContext(deps, ann.caller)).connectors).toHaveLength(1);
    expect((await getUserContext(deps, bo.caller)).connectors).toEqual([]);
  });

  it('shows the caller’s role in the team: the invitation’s for someone who joined with one', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    const admin = await invitedMember(testApp, owner, 'admin');
    const context = await getUserContext(deps, admin.caller);
    expect(context).toMatchObject({ id: admin.caller.userId, team_id: owner.caller.teamId, role: 'admin' });
    expect(context.vector_store).toEqual((await getUserContext(deps, owner.caller)).vector_store);
  });
});
