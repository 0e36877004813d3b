import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeConfluenceServer } from '../fakes/fake-confluence-server.js';
import { type FakeDrivePermission, FakeDriveServer } from '../fakes/fake-drive-server.js';
import { HANG_BOUND_MS } from '../helpers/hang-bound.js';
import {
  bearer,
  registerUser,
  startTestApp,
  TEST_REGISTRATION_SECRET,
  type TestApp,
  uploadDocuments,
  waitForJob,
} from '../helpers/test-app.js';

// Ann (owner) and Bob (member, invited) of one team, both with proven addresses (the trusted front
// end registered them); every document names a word of its own and the shared words "quarterly
// roadmap", so one search can list everything a reader may open.
const ANN = 'ann@corp.example';
const BOB = 'bob@corp.example';
/** An address nobody in the team has proven: an owner or admin may invite it and use the code. */
const CFO = 'cfo@corp.example';

type Member = { token: string; userId: number; userContext: Record<string, unknown> };

interface DriveCase {
  readonly name: string;
  readonly permissions: readonly FakeDrivePermission[];
  readonly sharedDrive?: boolean;
  readonly bobMayOpen: boolean;
}

const annOwns: FakeDrivePermission = { type: 'user', emailAddress: ANN, role: 'owner' };
const DRIVE_CASES: readonly DriveCase[] = [
  { name: 'ann-only.txt', permissions: [annOwns], bobMayOpen: false },
  {
    name: 'with-bob.txt',
    permissions: [annOwns, { type: 'user', emailAddress: BOB }],
    bobMayOpen: true,
  },
  {
    name: 'domain-discoverable.txt',
    permissions: [annOwns, { type: 'domain', domain: 'corp.example', allowFileDiscovery: true }],
    bobMayOpen: true,
  },
  {
    name: 'domain-link-only.txt',
    permissions: [annOwns, { type: 'domain', domain: 'corp.example', allowFileDiscovery: false }],
    bobMayOpen: false,
  },
  {
    name: 'anyone-discoverable.txt',
    permissions: [annOwns, { type: 'anyone', allowFileDiscovery: true }],
    bobMayOpen: true,
  },
  {
    name: 'group-of-bob.txt',
    // No directory source: a group grant matches no member (Ann reads it as the indexing user).
    permissions: [annOwns, { type: 'group', emailAddress: 'everyone@corp.example' }],
    bobMayOpen: false,
  },
  {
    name: 'shared-drive-with-bob.txt',
    permissions: [
      { type: 'user', emailAddress: ANN, role: 'organizer' },
      { type: 'user', emailAddress: BOB },
    ],
    sharedDrive: true,
    bobMayOpen: true,
  },
  {
    name: 'shared-drive-ann.txt',
    permissions: [{ type: 'user', emailAddress: ANN, role: 'organizer' }],
    sharedDrive: true,
    bobMayOpen: false,
  },
  {
    name: 'with-cfo.txt',
    permissions: [annOwns, { type: 'user', emailAddress: CFO }],
    bobMayOpen: false,
  },
];

/** A word of the document's own, from its name: `with-bob.txt` -> `withbobtoken`. */
function tokenOf(name: string): string {
  return `${name.replace(/\.txt$/, '').replaceAll('-', '')}token`;
}

describe('a team whose members read only what the sources let them open', () => {
  let drive: FakeDriveServer;
  let wiki: FakeConfluenceServer;
  let testApp: TestApp;
  let ann: Member;
  let bob: Member;
  const driveIds = new Map<string, string>();
  let driveJobId: string;
  let driveConnectorId: number;
  const bobMayOpen = new Set<string>();
  const annMayOpen = new Set<string>();

  async function member(token: string, userId: number): Promise<Member> {
    const me = await testApp.app.inject({ url: '/v1/users/me', headers: bearer(token) });
    expect(me.statusCode, me.body).toBe(200);
    return { token, userId, userContext: me.json() as Record<string, unknown> };
  }

  async function indexDrive(): Promise<Awaited<ReturnType<typeof waitForJob>>> {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v2/drive/files',
      headers: { ...bearer(ann.token), 'x-drive-authorization': `Bearer ${drive.accessToken}` },
      payload: {
        files: DRIVE_CASES.map((file) => ({
          id: driveIds.get(file.name),
          serviceId: 'google',
          name: file.name,
          description: '',
          type: 'text/plain',
          lastEditedUtc: 1_767_225_600_000,
          url: `https://drive.google.com/file/d/${driveIds.get(file.name)}/view`,
          sizeBytes: 1,
        })),
        user_context: ann.userContext,
      },
    });
    expect(response.statusCode, response.body).toBe(202);
    driveJobId = (response.json() as { result_id: string }).result_id;
    return waitForJob(testApp.app, ann.token, `/v2/drive/jobs/${driveJobId}`);
  }

  async function searchTitles(as: Member, query = 'quarterly roadmap'): Promise<string[]> {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v1/search',
      headers: bearer(as.token),
      payload: { query, top_k: 50, mode: 'lexical' },
    });
    expect(response.statusCode, response.body).toBe(200);
    const { results } = response.json() as { results: { title: string }[] };
    return [...new Set(results.map((result) => result.title))].sort();
  }

  beforeAll(async () => {
    drive = await FakeDriveServer.start({ ownerEmail: ANN });
    wiki = await FakeConfluenceServer.start({ flavour: 'cloud', username: ANN });
    wiki.addSpace('ENG', 'Engineering');
    testApp = await startTestApp({
      env: {
        GOOGLE_DRIVE_API_URL: drive.url,
        ...wiki.serviceEnv(),
      },
      worker: true,
    });

    const trusted = bearer(TEST_REGISTRATION_SECRET);
    const annRegistered = await registerUser(testApp.app, { email: ANN, name: 'Ann' }, trusted);
    ann = await member(annRegistered.token, annRegistered.userId);
    const invited = await testApp.app.inject({
      method: 'POST',
      url: '/v1/teams/invitations',
      headers: bearer(ann.token),
      payload: { email: BOB, role: 'member' },
    });
    expect(invited.statusCode, invited.body).toBe(201);
    const { code } = invited.json() as { code: string };
    const bobRegistered = await registerUser(
      testApp.app,
      { email: 'Bob@Corp.example', name: 'Bob', invitation: code },
      trusted,
    );
    expect(bobRegistered.teamId).toBe(annRegistered.teamId);
    bob = await member(bobRegistered.token, bobRegistered.userId);

    const folder = drive.addFolder({ name: 'Plans' });
    const sharedDrive = drive.addSharedDrive('Sales');
    for (const file of DRIVE_CASES) {
      const id = drive.addFile({
        name: file.name,
        mimeType: 'text/plain',
        parents: [file.sharedDrive === true ? sharedDrive : folder],
        content: `The quarterly roadmap of ${file.name}: ${tokenOf(file.name)} is the code word.`,
        permissions: file.permissions,
      });
      driveIds.set(file.name, id);
      annMayOpen.add(file.name);
      if (file.bobMayOpen) bobMayOpen.add(file.name);
    }
    const job = await indexDrive();
    expect(
      job.files.every((file) => file.status === 'indexed'),
      JSON.stringify(job.files),
    ).toBe(true);

    // Confluence: an open page, one restricted to Ann, and a child of a page both may read.
    const open = wiki.putPage('ENG', {
      title: 'Open wiki page',
      storageBody: '<p>quarterly roadmap openwikitoken</p>',
    });
    wiki.putPage('ENG', {
      title: 'Restricted wiki page',
      storageBody: '<p>quarterly roadmap restrictedwikitoken</p>',
      readRestrictions: { users: [ANN] },
    });
    const parent = wiki.putPage('ENG', {
      title: 'Leads wiki page',
      storageBody: '<p>quarterly roadmap leadswikitoken</p>',
      readRestrictions: { users: [ANN, BOB] },
    });
    wiki.putPage('ENG', {
      title: 'Child wiki page',
      storageBody: '<p>quarterly roadmap childwikitoken</p>',
      parentId: parent.id,
      readRestrictions: { users: [ANN] },
    });
    expect(open.id).toBeTruthy();
    const configured = await testApp.app.inject({
      method: 'POST',
      url: '/v1/wiki/config',
      headers: bearer(ann.token),
      payload: { wikiApiToken: wiki.apiToken, wikiUsername: ANN, wikiSpaceKey: 'ENG' },
    });
    expect(configured.statusCode, configured.body).toBe(201);
    for (const title of ['Open wiki page', 'Restricted wiki page', 'Leads wiki page', 'Child wiki page'])
      annMayOpen.add(title);
    bobMayOpen.add('Open wiki page');
    bobMayOpen.add('Leads wiki page');

    // Uploads: the team's by default, or the uploader's alone.
    await uploadDocuments(testApp.app, ann.token, [
      { external_id: 'team-note', title: 'Team note', text: 'quarterly roadmap teamnotetoken' },
      {
        external_id: 'private-note',
        title: 'Private note',
        text: 'quarterly roadmap privatenotetoken',
        visibility: 'private',
      },
    ]);
    annMayOpen.add('Team note');
    annMayOpen.add('Private note');
    bobMayOpen.add('Team note');

    const { rows } = await testApp.runtime.database.sql.executeSql(
      "SELECT id FROM connectors WHERE team_id = $1 AND slug = 'googledrive'",
      [annRegistered.teamId],
    );
    driveConnectorId = Number(rows[0]?.id);
  }, 900_000);

  afterAll(async () => {
    await testApp?.close();
    await drive?.close();
    await wiki?.close();
  });

  async function waitForWikiPages(count: number): Promise<void> {
    const deadline = Date.now() + HANG_BOUND_MS;
    for (;;) {
      const { rows } = await testApp.runtime.database.sql.executeSql(
        "SELECT count(*)::int AS n FROM documents WHERE source = 'wiki' AND status = 'indexed'",
      );
      if (Number(rows[0]?.n) >= count) return;
      if (Date.now() > deadline) throw new Error('wiki pages not indexed');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('finds for each member exactly what they may open, in search, the document list and pages', async () => {
    await waitForWikiPages(4);
    expect(await searchTitles(ann)).toEqual([...annMayOpen].sort());
    expect(await searchTitles(bob)).toEqual([...bobMayOpen].sort());
    // A word only an unreadable document has finds nothing, not a neighbour.
    expect(await searchTitles(bob, 'privatenotetoken')).toEqual([]);
    expect(await searchTitles(bob, 'domainlinkonlytoken')).toEqual([]);
    expect(await searchTitles(bob, 'withbobtoken')).toEqual(['with-bob.txt']);

    const listing = await testApp.app.inject({ url: '/v1/documents?limit=100', headers: bearer(bob.token) });
    const { documents, total } = listing.json() as {
      total: number;
      documents: { id: number; title: string; access: Record<string, unknown> }[];
    };
    expect(documents.map((document) => document.title).sort()).toEqual([...bobMayOpen].sort());
    expect(total).toBe(bobMayOpen.size);
    expect(documents.find((document) => document.title === 'with-bob.txt')?.access).toEqual({
      team: false,
      emails: [ANN, BOB],
      domains: [],
      groups: [],
    });
    expect(documents.find((document) => document.title === 'domain-discoverable.txt')?.access).toMatchObject({
      team: false,
      domains: ['corp.example'],
    });
    expect(documents.find((document) => document.title === 'anyone-discoverable.txt')?.access).toMatchObject({
      team: true,
    });

    const annListing = await testApp.app.inject({
      url: '/v1/documents?limit=100',
      headers: bearer(ann.token),
    });
    const hidden = (annListing.json() as { documents: { id: number; title: string }[] }).documents.filter(
      (document) => !bobMayOpen.has(document.title),
    );
    expect(hidden.length).toBe(annMayOpen.size - bobMayOpen.size);
    for (const document of hidden) {
      const page = await testApp.app.inject({
        url: `/v1/documents/${document.id}`,
        headers: bearer(bob.token),
      });
      expect(page.statusCode, document.title).toBe(404);
      const removal = await testApp.app.inject({
        method: 'DELETE',
        url: `/v1/documents/${document.id}`,
        headers: bearer(bob.token),
      });
      expect([403, 404], document.title).toContain(removal.statusCode);
    }
    const open = documents.find((document) => document.title === 'with-bob.txt');
    const page = await testApp.app.inject({ url: `/v1/documents/${open?.id}`, headers: bearer(bob.token) });
    expect(page.statusCode).toBe(200);
  });

  it('answers and cites only what the asker may open', async () => {
    const ask = async (as: Member) => {
      const response = await testApp.app.inject({
        method: 'POST',
        url: '/v1/chat/',
        headers: bearer(as.token),
        payload: {
          role: 'user',
          content: 'What is the code word of the quarterly roadmap?',
          user_context: as.userContext,
          timestamp: '2026-11-24T10:00:00Z',
        },
      });
      expect(response.statusCode, response.body).toBe(200);
      const lines = response.body
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const answer = lines.flatMap((line) => (typeof line.answer === 'string' ? [line.answer] : [])).join('');
      const sources = (lines.find((line) => line.sources !== undefined)?.sources ?? []) as {
        title: string;
      }[];
      return { answer, titles: sources.map((source) => source.title) };
    };
    const bobs = await ask(bob);
    expect(bobs.titles.length).toBeGreaterThan(0);
    for (const title of bobs.titles) expect(bobMayOpen.has(title), title).toBe(true);
    for (const name of DRIVE_CASES.filter((file) => !file.bobMayOpen).map((file) => file.name))
      expect(bobs.answer).not.toContain(tokenOf(name));
    expect(bobs.answer).not.toContain('privatenotetoken');
    expect(bobs.answer).not.toContain('restrictedwikitoken');
  });

  it("shows Bob the Drive connector's and Ann's job's files he may open, and refuses a forged user_context", async () => {
    const drivesBobMayOpen = DRIVE_CASES.filter((file) => file.bobMayOpen)
      .map((file) => file.name)
      .sort();
    const connector = await testApp.app.inject({
      url: `/v1/connectors/googledrive/${driveConnectorId}`,
      headers: bearer(bob.token),
    });
    expect(connector.statusCode, connector.body).toBe(200);
    const view = connector.json() as { files?: { name: string }[] };
    expect((view.files ?? []).map((file) => file.name).sort()).toEqual(drivesBobMayOpen);

    const job = await waitForJob(testApp.app, bob.token, `/v2/drive/jobs/${driveJobId}`);
    expect(job.files.map((file) => file.name).sort()).toEqual(drivesBobMayOpen);
    const annsView = await waitForJob(testApp.app, ann.token, `/v2/drive/jobs/${driveJobId}`);
    expect(annsView.files).toHaveLength(DRIVE_CASES.length);

    const forged = await testApp.app.inject({
      method: 'POST',
      url: '/v2/drive/files',
      headers: { ...bearer(bob.token), 'x-drive-authorization': `Bearer ${drive.accessToken}` },
      payload: {
        files: [
          {
            id: driveIds.get('ann-only.txt'),
            serviceId: 'google',
            name: 'ann-only.txt',
            description: '',
            type: 'text/plain',
            lastEditedUtc: 1_767_225_600_000,
            url: 'https://drive.google.com/file/d/x/view',
            sizeBytes: 1,
          },
        ],
        user_context: ann.userContext,
      },
    });
    expect(forged.statusCode, forged.body).toBe(403);
    const forgedChat = await testApp.app.inject({
      method: 'POST',
      url: '/v1/chat/',
      headers: bearer(bob.token),
      payload: { role: 'user', content: 'quarterly roadmap?', user_context: ann.userContext },
    });
    expect(forgedChat.statusCode, forgedChat.body).toBe(403);
  });

  it('drops a file Ann unshares from Bob at the next sync, without embedding it again', async () => {
    expect(await searchTitles(bob, 'withbobtoken')).toEqual(['with-bob.txt']);
    drive.unshare(driveIds.get('with-bob.txt') ?? '', BOB);
    const job = await indexDrive();
    // Sharing changed, content did not: the document is updated (who may open it), not re-embedded;
    // a file whose sharing did not change either is unchanged.
    expect(job.files.find((file) => file.name === 'with-bob.txt')).toMatchObject({ status: 'indexed' });
    expect(job.files.find((file) => file.name === 'ann-only.txt')).toMatchObject({
      status: 'skipped',
      reason: 'unchanged',
    });
    expect(await searchTitles(bob, 'withbobtoken')).toEqual([]);
    expect(await searchTitles(ann, 'withbobtoken')).toEqual(['with-bob.txt']);
    bobMayOpen.delete('with-bob.txt');
  });

  /** Ann invites `email` and uses the code herself, as anyone who sees the code could. */
  async function sitInWithCode(email: string, password: string): Promise<Member> {
    const invited = await testApp.app.inject({
      method: 'POST',
      url: '/v1/teams/invitations',
      headers: bearer(ann.token),
      payload: { email, role: 'member' },
    });
    expect(invited.statusCode, invited.body).toBe(201);
    const registered = await testApp.app.inject({
      method: 'POST',
      url: '/v2/users/register',
      payload: { email, password, invitation: (invited.json() as { code: string }).code },
    });
    expect(registered.statusCode, registered.body).toBe(201);
    const body = registered.json() as {
      access_token: string;
      user: { id: number };
      email_verification: string;
    };
    expect(body.email_verification).toBe('unverified');
    return member(body.access_token, body.user.id);
  }

  it("opens nothing shared with an address to an account that never proved it (an owner inviting the CFO's)", async () => {
    expect(await searchTitles(ann, 'withcfotoken')).toEqual(['with-cfo.txt']);
    const squatter = await sitInWithCode(CFO, 'squatter password');
    expect(squatter.userContext.email_verified).toBe(false);
    // Neither the file shared with the address, nor the one shared with its domain.
    expect(await searchTitles(squatter, 'withcfotoken')).toEqual([]);
    expect(await searchTitles(squatter, 'domaindiscoverabletoken')).toEqual([]);
    // What the whole team may open, it opens.
    expect(await searchTitles(squatter)).toEqual(
      [...annMayOpen]
        .filter((title) => ['Team note', 'Open wiki page', 'anyone-discoverable.txt'].includes(title))
        .sort(),
    );
    const listing = await testApp.app.inject({
      url: '/v1/documents?limit=100',
      headers: bearer(squatter.token),
    });
    const titles = (listing.json() as { documents: { title: string }[] }).documents.map(
      (document) => document.title,
    );
    expect(titles).not.toContain('with-cfo.txt');
    expect(titles).not.toContain('domain-discoverable.txt');
    // Its own private upload it opens: private uploads are the poster's account's, proven or not.
    await uploadDocuments(testApp.app, squatter.token, [
      {
        external_id: 'cfo-own',
        title: 'CFO own note',
        text: 'quarterly roadmap cfoowntoken',
        visibility: 'private',
      },
    ]);
    expect(await searchTitles(squatter, 'cfoowntoken')).toEqual(['CFO own note']);
    expect(await searchTitles(ann, 'cfoowntoken')).toEqual([]);
  });

  it("refuses a removed member's token at once", async () => {
    const removed = await testApp.app.inject({
      method: 'DELETE',
      url: `/v1/teams/members/${bob.userId}`,
      headers: bearer(ann.token),
    });
    expect(removed.statusCode, removed.body).toBe(204);
    const me = await testApp.app.inject({ url: '/v1/users/me', headers: bearer(bob.token) });
    expect(me.statusCode).toBe(401);
    const search = await testApp.app.inject({
      method: 'POST',
      url: '/v1/search',
      headers: bearer(bob.token),
      payload: { query: 'quarterly roadmap' },
    });
    expect(search.statusCode).toBe(401);

    // The removed member's address, invited again and registered with the code by whoever holds
    // it, opens none of what Drive shares with that address or its domain.
    const again = await sitInWithCode(BOB, 'not bob at all');
    expect(await searchTitles(again, 'shareddrivewithbobtoken')).toEqual([]);
    expect(await searchTitles(again, 'domaindiscoverabletoken')).toEqual([]);
    expect(await searchTitles(ann, 'shareddrivewithbobtoken')).toEqual(['shared-drive-with-bob.txt']);
  });
});
