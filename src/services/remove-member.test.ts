import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, uniqueSuffix } from '../../test/helpers/test-app.js';
import {
  invitedMember,
  refusal,
  type SignedInUser,
  signedInUser,
} from '../../test/helpers/use-case-harness.js';
import { type DocumentAccess, peopleAccess, TEAM_ACCESS } from '../access.js';
import { saveAccessList } from '../db/repositories/access-lists.js';
import { inviteMember } from './invite-member.js';
import { listChats } from './list-chats.js';
import { listInvitations } from './list-invitations.js';
import { listMembers } from './list-members.js';
import { registerUser } from './register-user.js';
import { removeMember } from './remove-member.js';
import { saveChat } from './save-chat.js';

describe('removeMember', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  async function team() {
    const owner = await signedInUser(testApp);
    const join = (role: 'member' | 'admin'): Promise<SignedInUser> => invitedMember(testApp, owner, role);
    return { owner, join, admin: await join('admin'), member: await join('member') };
  }

  /** A stored document (with `chunks` passages) as indexing leaves it; answers its id. */
  async function storeDocument(
    user: SignedInUser,
    fields: { source: 'upload' | 'googledrive'; access: DocumentAccess; chunks?: number },
  ): Promise<number> {
    const { sql } = testApp.runtime.database;
    const accessListId = await saveAccessList(sql, user.caller.teamId, fields.access);
    const { rows } = await sql.executeSql<{ id: number }>(
      `INSERT INTO documents (team_id, source, external_id, title, status, chunk_count, access_list_id, indexed_by)
       VALUES ($1, $2, $3, 'A document', 'indexed', $4, $5, $6) RETURNING id`,
      [
        user.caller.teamId,
        fields.source,
        `doc-${uniqueSuffix()}`,
        fields.chunks ?? 0,
        accessListId,
        user.caller.userId,
      ],
    );
    const id = Number(rows[0]?.id);
    for (let position = 0; position < (fields.chunks ?? 0); position += 1) {
      await sql.executeSql(
        `INSERT INTO chunks (document_id, team_id, source, position, text, token_count, search, access_list_id)
         VALUES ($1, $2, $3, $4, 'Some text.', 2, to_tsvector('english', 'Some text.'), $5)`,
        [id, user.caller.teamId, fields.source, position, accessListId],
      );
    }
    return id;
  }

  const documentIds = async (teamId: number) => {
    const { rows } = await testApp.runtime.database.sql.executeSql<{ id: number }>(
      'SELECT id FROM documents WHERE team_id = $1 ORDER BY id',
      [teamId],
    );
    return rows.map((row) => Number(row.id));
  };

  it('removes a member: tokens refused at once, chats and private uploads deleted, shared documents kept', async () => {
    const { deps } = testApp.runtime;
    const { owner, member } = await team();
    await saveChat(deps, member.caller, 'chat-1', {
      chat_id: 'chat-1',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const privateUpload = await storeDocument(member, {
      source: 'upload',
      access: peopleAccess(member.caller.email),
      chunks: 3,
    });
    const teamUpload = await storeDocument(member, { source: 'upload', access: TEAM_ACCESS, chunks: 1 });
    const driveFile = await storeDocument(member, {
      source: 'googledrive',
      access: peopleAccess(member.caller.email),
    });
    const ownersPrivate = await storeDocument(owner, {
      source: 'upload',
      access: peopleAccess(owner.caller.email),
    });
    // The member's token is in the cache, as after any request.
    expect(await deps.callers.find(member.token)).toEqual(member.caller);

    await removeMember(deps, owner.caller, String(member.caller.userId));

    expect(await deps.callers.find(member.token)).toBeUndefined();
    expect((await listMembers(deps, owner.caller)).members.map((listed) => listed.user_id)).not.toContain(
      member.caller.userId,
    );
    expect(await documentIds(owner.caller.teamId)).toEqual([teamUpload, driveFile, ownersPrivate]);
    expect(privateUpload).toBeGreaterThan(0);
    const leftovers = await testApp.runtime.database.sql.executeSql(
      `SELECT (SELECT count(*)::int FROM chunks WHERE document_id = $1) AS chunks,
              (SELECT count(*)::int FROM chats WHERE user_id = $2) AS chats,
              (SELECT count(*)::int FROM access_tokens WHERE user_id = $2) AS tokens,
              (SELECT count(*)::int FROM accounts WHERE user_id = $2) AS accounts`,
      [privateUpload, member.caller.userId],
    );
    expect(leftovers.rows[0]).toEqual({ chunks: 0, chats: 0, tokens: 0, accounts: 0 });
    const kept = await testApp.runtime.database.sql.executeSql<{ indexed_by: number | null }>(
      'SELECT indexed_by FROM documents WHERE id = $1',
      [driveFile],
    );
    expect(kept.rows[0]?.indexed_by).toBeNull();
    await expect(listChats(deps, member.caller, { limit: 10, offset: 0 })).resolves.toMatchObject({
      total: 0,
    });
    await refusal(removeMember(deps, owner.caller, String(member.caller.userId)), 'not_found');
  });

  it('lets admins remove members and admins, members only leave, and nobody remove the owner', async () => {
    const { deps } = testApp.runtime;
    const { owner, join, admin, member } = await team();
    const stranger = await signedInUser(testApp);
    const notByMember = await refusal(
      removeMember(deps, member.caller, String(admin.caller.userId)),
      'forbidden',
    );
    expect(notByMember.message).toContain('owner and admins');
    const notTheOwner = await refusal(
      removeMember(deps, admin.caller, String(owner.caller.userId)),
      'forbidden',
    );
    expect(notTheOwner.message).toContain('owner cannot be removed');
    const ownerStays = await refusal(
      removeMember(deps, owner.caller, String(owner.caller.userId)),
      'conflict',
    );
    expect(ownerStays.message).toContain('cannot leave');
    await refusal(removeMember(deps, owner.caller, String(stranger.caller.userId)), 'not_found');
    await refusal(removeMember(deps, owner.caller, 'someone'), 'not_found');

    // A member leaves; an admin removes another admin, then leaves too.
    await removeMember(deps, member.caller, String(member.caller.userId));
    const secondAdmin = await join('admin');
    await removeMember(deps, admin.caller, String(secondAdmin.caller.userId));
    await removeMember(deps, admin.caller, String(admin.caller.userId));
    expect((await listMembers(deps, owner.caller)).members.map((listed) => listed.role)).toEqual(['owner']);
    for (const gone of [member, secondAdmin, admin])
      expect(await deps.callers.find(gone.token)).toBeUndefined();
    expect(await deps.callers.find(stranger.token)).toEqual(stranger.caller);
  });

  it('withdraws the open invitations of an admin removed or leaving; the owner’s and other admins’ stay', async () => {
    const { deps } = testApp.runtime;
    const { owner, join, admin } = await team();
    const leaver = await join('admin');
    const keeper = await join('admin');
    const invite = async (by: SignedInUser) => {
      const email = `spare-${uniqueSuffix()}@example.com`;
      return inviteMember(deps, by.caller, { email, role: 'admin' });
    };
    const [fromRemoved, fromLeaver, fromOwner, fromKeeper] = [
      await invite(admin),
      await invite(leaver),
      await invite(owner),
      await invite(keeper),
    ];

    await removeMember(deps, owner.caller, String(admin.caller.userId));
    await removeMember(deps, leaver.caller, String(leaver.caller.userId));

    const open = (await listInvitations(deps, owner.caller)).invitations.map(
      (listed) => listed.invitation_id,
    );
    expect(open.sort()).toEqual([fromOwner.invitation_id, fromKeeper.invitation_id].sort());
    for (const withdrawn of [fromRemoved, fromLeaver]) {
      const refused = await refusal(
        registerUser(
          deps,
          { email: withdrawn.email, password: 'spare-password', invitation: withdrawn.code },
          { bearerToken: undefined, clientAddress: '203.0.113.9' },
        ),
        'forbidden',
      );
      expect(refused.message).toContain('Invitation withdrawn');
    }
  });
});
