import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, uniqueSuffix } from '../../test/helpers/test-app.js';
import {
  indexTexts,
  invitedMember,
  refusal,
  type SignedInUser,
  signedInUser,
} from '../../test/helpers/use-case-harness.js';
import { type DocumentAccess, peopleAccess, TEAM_ACCESS } from '../access.js';
import { saveAccessList } from '../db/repositories/access-lists.js';
import { deleteDocument } from './delete-document.js';
import { getDocument } from './get-document.js';
import { listDocuments } from './list-documents.js';
import { searchDocuments } from './search-documents.js';

describe('deleteDocument', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp({ worker: true });
  });
  afterAll(() => testApp.close());

  it('deletes the document with its passages: no listing, page or search finds it any more', async () => {
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    const job = await indexTexts(testApp, caller, [
      { external_id: 'parking', title: 'Parking', text: 'Visitors park in the basement garage.' },
      { external_id: 'canteen', title: 'Canteen', text: 'The canteen opens at noon.' },
    ]);
    const parking = job.files.find((file) => file.id === 'parking')?.document_id;
    const search = () => searchDocuments(deps, caller, { query: 'basement garage', topK: 5 });
    expect((await search()).results.map((result) => result.external_id)).toContain('parking');

    await deleteDocument(deps, caller, String(parking));
    await refusal(getDocument(deps, caller, String(parking)), 'not_found');
    expect(
      (await listDocuments(deps, caller, { limit: 10, offset: 0 })).documents.map((d) => d.external_id),
    ).toEqual(['canteen']);
    expect((await search()).results.map((result) => result.external_id)).not.toContain('parking');
    await refusal(deleteDocument(deps, caller, String(parking)), 'not_found');
  });

  it('cannot delete another team’s document', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    const stranger = await signedInUser(testApp);
    const job = await indexTexts(testApp, owner.caller, [{ external_id: 'plan', text: 'The plan.' }]);
    const id = String(job.files[0]?.document_id);
    await refusal(deleteDocument(deps, stranger.caller, id), 'not_found');
    await refusal(deleteDocument(deps, stranger.caller, 'not-a-number'), 'not_found');
    expect((await getDocument(deps, owner.caller, id)).document.external_id).toBe('plan');
  });

  /** A stored document as indexing leaves it, brought in by `user`; answers its id. */
  async function storeDocument(user: SignedInUser, access: DocumentAccess): Promise<number> {
    const { sql } = testApp.runtime.database;
    const accessListId = await saveAccessList(sql, user.caller.teamId, access);
    const { rows } = await sql.executeSql<{ id: number }>(
      `INSERT INTO documents (team_id, source, external_id, title, status, access_list_id, indexed_by)
       VALUES ($1, 'upload', $2, 'A document', 'indexed', $3, $4) RETURNING id`,
      [user.caller.teamId, `doc-${uniqueSuffix()}`, accessListId, user.caller.userId],
    );
    return Number(rows[0]?.id);
  }

  const exists = async (id: number) =>
    (await testApp.runtime.database.sql.executeSql('SELECT 1 FROM documents WHERE id = $1', [id])).rows
      .length > 0;

  it('lets a member delete what they brought in, not others’ documents; owners and admins any they may open', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    const member = await invitedMember(testApp, owner, 'member');
    const admin = await invitedMember(testApp, owner, 'admin');
    const own = await storeDocument(member, TEAM_ACCESS);
    const ownersShared = await storeDocument(owner, TEAM_ACCESS);
    const ownersPrivate = await storeDocument(owner, peopleAccess(owner.caller.email));
    const adminsShared = await storeDocument(admin, TEAM_ACCESS);

    const others = await refusal(deleteDocument(deps, member.caller, String(ownersShared)), 'forbidden');
    expect(others.message).toContain('owner and admins');
    // One the member may not even open is not there for them.
    await refusal(deleteDocument(deps, member.caller, String(ownersPrivate)), 'not_found');
    await deleteDocument(deps, member.caller, String(own));
    expect(await exists(own)).toBe(false);
    expect(await exists(ownersShared)).toBe(true);

    await deleteDocument(deps, admin.caller, String(ownersShared));
    // Not even an admin learns of a private upload that is not theirs.
    await refusal(deleteDocument(deps, admin.caller, String(ownersPrivate)), 'not_found');
    await deleteDocument(deps, owner.caller, String(ownersPrivate));
    await deleteDocument(deps, owner.caller, String(adminsShared));
    for (const id of [ownersShared, ownersPrivate, adminsShared]) expect(await exists(id)).toBe(false);
  });
});
