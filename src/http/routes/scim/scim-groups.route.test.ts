import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scimClient } from '../../../../test/helpers/scim-client.js';
import {
  bearer,
  registerUser,
  startTestApp,
  TEST_REGISTRATION_SECRET,
  type TestApp,
  uniqueSuffix,
  uploadDocuments,
} from '../../../../test/helpers/test-app.js';
import { saveAccessList } from '../../../db/repositories/access-lists.js';

const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

interface ScimGroup {
  id: string;
  displayName: string;
  externalId?: string;
  members?: { value: string; display: string; $ref: string }[];
  meta: { resourceType: string; location: string };
}

describe('SCIM 2.0 groups, and documents: shared with a group, left by a deactivated member', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp({ worker: true });
  });
  afterAll(() => testApp.close());

  const { scim, api, team } = scimClient(() => testApp);

  /** A member with a proven address, provisioned over SCIM too (linked); answers their token and SCIM id. */
  async function provisionedMember(ownerToken: string, scimToken: string) {
    const email = `member-${uniqueSuffix()}@acme.com`;
    const invitation = (
      await api('POST', '/v1/teams/invitations', ownerToken, { email, role: 'member' })
    ).json();
    const joined = await registerUser(
      testApp.app,
      { email, invitation: invitation.code },
      bearer(TEST_REGISTRATION_SECRET),
    );
    const created = await scim('POST', '/Users', scimToken, {
      schemas: [USER_SCHEMA],
      userName: email,
      name: { givenName: 'Pat', familyName: 'Doe' },
      emails: [{ primary: true, value: email, type: 'work' }],
      active: true,
    });
    expect(created.statusCode, created.body).toBe(201);
    return { token: joined.token, email, scimId: created.json().id as string };
  }

  const expectScimError = (response: Awaited<ReturnType<typeof scim>>, status: number, scimType?: string) => {
    expect(response.statusCode, response.body).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/scim\+json/);
    expect(response.json()).toMatchObject({
      status: String(status),
      ...(scimType === undefined ? {} : { scimType }),
    });
  };

  it('creates, lists, renames, changes members of (Okta and Entra ID shapes), replaces and deletes groups', async () => {
    const { owner, scimToken } = await team();
    const ann = await provisionedMember(owner.token, scimToken);
    const bo = await provisionedMember(owner.token, scimToken);

    const created = await scim('POST', '/Groups', scimToken, {
      schemas: [GROUP_SCHEMA],
      displayName: 'Engineering',
      members: [],
    });
    expect(created.statusCode, created.body).toBe(201);
    const group = created.json() as ScimGroup;
    expect(group).toEqual({
      schemas: [GROUP_SCHEMA],
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      displayName: 'Engineering',
      members: [],
      meta: {
        resourceType: 'Group',
        created: expect.any(String),
        lastModified: expect.any(String),
        location: `${testApp.config.publicUrl}/scim/v2/Groups/${group.id}`,
      },
    });
    expectScimError(
      await scim('POST', '/Groups', scimToken, { displayName: 'ENGINEERING' }),
      409,
      'uniqueness',
    );
    expectScimError(await scim('POST', '/Groups', scimToken, { members: [] }), 400, 'invalidValue');

    // Okta: add members by a value list.
    const added = await scim('PATCH', `/Groups/${group.id}`, scimToken, {
      schemas: [PATCH_OP],
      Operations: [
        {
          op: 'add',
          path: 'members',
          value: [{ value: ann.scimId, display: ann.email }, { value: bo.scimId }],
        },
      ],
    });
    expect(added.statusCode, added.body).toBe(200);
    expect((added.json() as ScimGroup).members?.map((m) => m.value).sort()).toEqual(
      [ann.scimId, bo.scimId].sort(),
    );

    // Entra ID: remove one by a filter path; rename (Okta sends the id in the value).
    const removed = await scim('PATCH', `/Groups/${group.id}`, scimToken, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Remove', path: `members[value eq "${bo.scimId}"]` }],
    });
    expect((removed.json() as ScimGroup).members).toEqual([
      {
        value: ann.scimId,
        display: ann.email,
        $ref: `${testApp.config.publicUrl}/scim/v2/Users/${ann.scimId}`,
        type: 'User',
      },
    ]);
    const renamed = await scim('PATCH', `/Groups/${group.id}`, scimToken, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { id: group.id, displayName: 'Platform' } }],
    });
    expect(renamed.json()).toMatchObject({ displayName: 'Platform' });

    const listed = await scim(
      'GET',
      `/Groups?filter=${encodeURIComponent('displayName eq "Platform"')}&excludedAttributes=members`,
      scimToken,
    );
    expect(listed.json()).toMatchObject({
      totalResults: 1,
      Resources: [{ id: group.id, displayName: 'Platform' }],
    });
    expect(listed.json().Resources[0].members).toBeUndefined();
    expect(
      (
        await scim('GET', `/Groups?filter=${encodeURIComponent('displayName eq "Engineering"')}`, scimToken)
      ).json().totalResults,
    ).toBe(0);
    expect((await scim('GET', `/Groups/${group.id}`, scimToken)).json().members).toHaveLength(1);

    const put = await scim('PUT', `/Groups/${group.id}`, scimToken, {
      schemas: [GROUP_SCHEMA],
      displayName: 'Platform',
      externalId: 'platform@acme.com',
      members: [{ value: bo.scimId }],
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({ externalId: 'platform@acme.com', members: [{ value: bo.scimId }] });

    // A member a user deletion takes out of every group.
    expect((await scim('DELETE', `/Users/${bo.scimId}`, scimToken)).statusCode).toBe(204);
    expect((await scim('GET', `/Groups/${group.id}`, scimToken)).json().members).toEqual([]);

    expect((await scim('DELETE', `/Groups/${group.id}`, scimToken)).statusCode).toBe(204);
    expectScimError(await scim('GET', `/Groups/${group.id}`, scimToken), 404);
  });

  it("one team's token never reaches another team's groups, nor puts another team's people in its own", async () => {
    const a = await team();
    const b = await team();
    const bPerson = await provisionedMember(b.owner.token, b.scimToken);
    const bGroup = (
      await scim('POST', '/Groups', b.scimToken, {
        displayName: 'b@acme.com',
        members: [{ value: bPerson.scimId }],
      })
    ).json() as ScimGroup;

    expectScimError(await scim('GET', `/Groups/${bGroup.id}`, a.scimToken), 404);
    expectScimError(
      await scim('PATCH', `/Groups/${bGroup.id}`, a.scimToken, {
        Operations: [{ op: 'Remove', path: 'members' }],
      }),
      404,
    );
    expectScimError(await scim('PUT', `/Groups/${bGroup.id}`, a.scimToken, { displayName: 'x' }), 404);
    expectScimError(await scim('DELETE', `/Groups/${bGroup.id}`, a.scimToken), 404);
    expect((await scim('GET', '/Groups', a.scimToken)).json().totalResults).toBe(0);

    const aGroup = (
      await scim('POST', '/Groups', a.scimToken, { displayName: 'a@acme.com' })
    ).json() as ScimGroup;
    expectScimError(
      await scim('PATCH', `/Groups/${aGroup.id}`, a.scimToken, {
        Operations: [{ op: 'Add', path: 'members', value: [{ value: bPerson.scimId }] }],
      }),
      400,
      'invalidValue',
    );
    expect((await scim('GET', `/Groups/${bGroup.id}`, b.scimToken)).json().members).toHaveLength(1);
  });

  it('a group named by an address opens documents shared with it to its members, and no longer once they leave it', async () => {
    const { owner, scimToken } = await team();
    const insider = await provisionedMember(owner.token, scimToken);
    const outsider = await provisionedMember(owner.token, scimToken);
    const marker = `zebracorn${uniqueSuffix()}`;
    const job = await uploadDocuments(testApp.app, owner.token, [
      {
        external_id: 'eng-roadmap',
        title: 'Engineering roadmap',
        text: `The ${marker} migration ships in March.`,
      },
    ]);
    expect(job.files.map((file) => file.status)).toEqual(['indexed']);
    // Shared only with the group, as a Drive file shared with eng@acme.com is stored.
    const { sql } = testApp.runtime.database;
    const accessListId = await saveAccessList(sql, owner.teamId, {
      team: false,
      emails: [],
      domains: [],
      groups: ['eng@acme.com'],
    });
    const { rows } = await sql.executeSql<{ id: number }>(
      `UPDATE documents SET access_list_id = $1 WHERE team_id = $2 AND external_id = 'eng-roadmap' RETURNING id`,
      [accessListId, owner.teamId],
    );
    const documentId = Number(rows[0]?.id);
    await sql.executeSql('UPDATE chunks SET access_list_id = $1 WHERE document_id = $2', [
      accessListId,
      documentId,
    ]);
    for (const table of ['chunk_terms', 'chunk_embeddings']) {
      await sql.executeSql(
        `UPDATE ${table} SET access_list_id = $1 WHERE chunk_id IN (SELECT id FROM chunks WHERE document_id = $2)`,
        [accessListId, documentId],
      );
    }

    const finds = async (token: string) => {
      const listed = await api('GET', '/v1/documents', token);
      expect(listed.statusCode, listed.body).toBe(200);
      const searched = await api('POST', '/v1/search', token, { query: `${marker} migration` });
      expect(searched.statusCode, searched.body).toBe(200);
      const inList = (listed.json() as { documents: { external_id: string }[] }).documents.some(
        (document) => document.external_id === 'eng-roadmap',
      );
      const inSearch = (searched.json() as { results: { external_id: string }[] }).results.some(
        (result) => result.external_id === 'eng-roadmap',
      );
      expect(inSearch).toBe(inList);
      return inList;
    };
    expect(await finds(insider.token)).toBe(false);

    // Entra ID's shape: the group, then its members added; the address is the group's externalId here.
    const group = (
      await scim('POST', '/Groups', scimToken, { displayName: 'Engineering', externalId: 'eng@acme.com' })
    ).json() as ScimGroup;
    const added = await scim('PATCH', `/Groups/${group.id}`, scimToken, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Add', path: 'members', value: [{ value: insider.scimId }] }],
    });
    expect(added.statusCode, added.body).toBe(200);
    expect(await finds(insider.token)).toBe(true);
    expect(await finds(outsider.token)).toBe(false);

    const removed = await scim('PATCH', `/Groups/${group.id}`, scimToken, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Remove', path: `members[value eq "${insider.scimId}"]` }],
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(await finds(insider.token)).toBe(false);

    // By its display name too, as Okta names pushed groups; deleting the group closes it again.
    const okta = (
      await scim('POST', '/Groups', scimToken, {
        displayName: 'eng@acme.com',
        members: [{ value: outsider.scimId }],
      })
    ).json() as ScimGroup;
    expect(await finds(outsider.token)).toBe(true);
    expect((await scim('DELETE', `/Groups/${okta.id}`, scimToken)).statusCode).toBe(204);
    expect(await finds(outsider.token)).toBe(false);
  });

  it("a deactivated member's documents follow the rules for a removed member: private uploads go, shared ones stay", async () => {
    const { owner, scimToken } = await team();
    const leaver = await provisionedMember(owner.token, scimToken);
    const job = await uploadDocuments(testApp.app, leaver.token, [
      {
        external_id: 'leaver-notes',
        title: 'My notes',
        text: 'Private notes of the leaver.',
        visibility: 'private',
      },
      { external_id: 'leaver-guide', title: 'Team guide', text: 'A guide the leaver shared with the team.' },
    ]);
    expect(job.files.map((file) => file.status)).toEqual(['indexed', 'indexed']);
    const ownerSees = async () =>
      (
        (await api('GET', '/v1/documents', owner.token)).json() as { documents: { external_id: string }[] }
      ).documents
        .map((document) => document.external_id)
        .sort();
    expect(await ownerSees()).toEqual(['leaver-guide']);
    const leaverSees = (await api('GET', '/v1/documents', leaver.token)).json() as { documents: unknown[] };
    expect(leaverSees.documents).toHaveLength(2);

    const off = await scim('PATCH', `/Users/${leaver.scimId}`, scimToken, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(off.statusCode, off.body).toBe(200);
    expect((await api('GET', '/v1/documents', leaver.token)).statusCode).toBe(401);
    expect(await ownerSees()).toEqual(['leaver-guide']);
    const { rows } = await testApp.runtime.database.sql.executeSql<{ external_id: string }>(
      'SELECT external_id FROM documents WHERE team_id = $1 ORDER BY external_id',
      [owner.teamId],
    );
    expect(rows.map((row) => row.external_id)).toEqual(['leaver-guide']);
  });
});
