// GET /v1/documents says per document whether the caller may delete it (`can_delete`), by the rule
// DELETE /v1/documents/{id} enforces: members their own, owners and admins any they may open.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  joinedMember,
  registerUser,
  startTestApp,
  type TestApp,
  uploadDocuments,
} from '../../../../test/helpers/test-app.js';

interface ListedDocument {
  id: number;
  external_id: string;
  can_delete: boolean;
}

/** A team's people, by their bearer tokens. */
interface Team {
  owner: string;
  admin: string;
  member: string;
}

describe('can_delete', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp({ worker: true });
  });
  afterAll(async () => {
    await testApp?.close();
  });

  /** A fresh team whose owner, admin and member each uploaded one document for the team (`<who>-shared`) and one private. */
  async function teamWithDocuments(): Promise<Team> {
    const { token: owner } = await registerUser(testApp.app);
    const team = {
      owner,
      admin: await joinedMember(testApp.app, owner, 'admin'),
      member: await joinedMember(testApp.app, owner, 'member'),
    };
    for (const [who, token] of Object.entries(team)) {
      const job = await uploadDocuments(testApp.app, token, [
        {
          external_id: `${who}-shared`,
          title: `${who} shared`,
          text: `A note the ${who} shared with the team.`,
        },
        {
          external_id: `${who}-private`,
          title: `${who} private`,
          text: `A note the ${who} keeps to themselves.`,
          visibility: 'private',
        },
      ]);
      expect(job.files.map((file) => file.status)).toEqual(['indexed', 'indexed']);
    }
    return team;
  }

  async function listed(token: string): Promise<ListedDocument[]> {
    const response = await testApp.app.inject({ url: '/v1/documents', headers: bearer(token) });
    expect(response.statusCode).toBe(200);
    return (response.json() as { documents: ListedDocument[] }).documents;
  }

  async function deletable(token: string): Promise<Record<string, boolean>> {
    const documents = await listed(token);
    return Object.fromEntries(documents.map((document) => [document.external_id, document.can_delete]));
  }

  it("tells a member they may delete their own documents and not a teammate's; owners and admins any they see", async () => {
    const team = await teamWithDocuments();
    expect(await deletable(team.member)).toEqual({
      'member-shared': true,
      'member-private': true,
      'admin-shared': false,
      'owner-shared': false,
    });
    expect(await deletable(team.admin)).toEqual({
      'member-shared': true,
      'admin-shared': true,
      'admin-private': true,
      'owner-shared': true,
    });
    expect(await deletable(team.owner)).toEqual({
      'member-shared': true,
      'admin-shared': true,
      'owner-shared': true,
      'owner-private': true,
    });
  });

  it("says the same on a document's page", async () => {
    const team = await teamWithDocuments();
    const byExternalId = new Map(
      (await listed(team.member)).map((document) => [document.external_id, document]),
    );
    for (const [externalId, canDelete] of [
      ['owner-shared', false],
      ['member-shared', true],
    ] as const) {
      const response = await testApp.app.inject({
        url: `/v1/documents/${byExternalId.get(externalId)?.id}`,
        headers: bearer(team.member),
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().document).toMatchObject({ external_id: externalId, can_delete: canDelete });
    }
  });

  it('agrees with DELETE: it succeeds exactly where can_delete was true, for every role', async () => {
    const team = await teamWithDocuments();
    // The member first, then the admin, then the owner: each deletes whatever they may of what is left.
    for (const [who, token] of [
      ['member', team.member],
      ['admin', team.admin],
      ['owner', team.owner],
    ] as const) {
      const documents = await listed(token);
      expect(documents.length, who).toBeGreaterThan(0);
      for (const document of documents) {
        const response = await testApp.app.inject({
          method: 'DELETE',
          url: `/v1/documents/${document.id}`,
          headers: bearer(token),
        });
        expect({ who, document: document.external_id, status: response.statusCode }, response.body).toEqual({
          who,
          document: document.external_id,
          status: document.can_delete ? 204 : 403,
        });
      }
    }
    // Between them they could delete everything each of them could see.
    for (const token of Object.values(team)) expect(await listed(token)).toEqual([]);
  });
});
