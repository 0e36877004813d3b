import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeDriveServer } from '../../test/fakes/fake-drive-server.js';
import type { FakeGoogleOAuthServer } from '../../test/fakes/fake-google-oauth-server.js';
import { type FakeOAuthProviders, startFakeOAuthProviders } from '../../test/fakes/fake-oauth-providers.js';
import {
  bearer,
  registrationRecord,
  startTestApp,
  TEST_REGISTRATION_SECRET,
  type TestApp,
  uniqueSuffix,
} from '../../test/helpers/test-app.js';
import { invitedMember, type SignedInUser, waitForIndexJob } from '../../test/helpers/use-case-harness.js';
import type { Caller } from '../caller.js';
import { setUserTeam } from '../db/repositories/users.js';
import { deleteDocument } from './delete-document.js';
import type { ServiceDependencies } from './dependencies.js';
import { ensureTeamConnector } from './ensure-team-connector.js';
import { getConnector } from './get-connector.js';
import { getUserContext } from './get-user-context.js';
import { type DriveFileInput, indexDriveFiles } from './index-drive-files.js';
import { searchDocuments } from './search-documents.js';
import { type DriveSyncRound, driveSyncClient, queueDueDriveSyncs } from './sync-drive.js';

const PUBLIC_URL = 'http://127.0.0.1:8000';
const HOUR_MS = 3_600_000;

function picked(id: string, name: string, type = 'file'): DriveFileInput {
  return { id, name, type, url: `https://drive.google.com/file/d/${id}/view`, serviceId: 'google' };
}

/** A Google sign-in's registration by the trusted front end, with its refresh token (or none). */
interface GoogleMember extends SignedInUser {
  readonly refreshToken: string | null;
  /** The access token the member's browser indexes with (accepted by the fake Drive until revoked). */
  readonly browserToken: string;
}

describe('queueDueDriveSyncs', () => {
  let providers: FakeOAuthProviders;
  let drive: FakeDriveServer;
  let google: FakeGoogleOAuthServer;
  let testApp: TestApp;
  let deps: ServiceDependencies;
  /** Each test's rounds run on a clock later than the previous test's. */
  let hoursAhead = 0;

  beforeAll(async () => {
    providers = await startFakeOAuthProviders(PUBLIC_URL);
    ({ drive, google } = providers);
    // The worker runs the jobs; its own schedule stays off: the tests run the rounds themselves.
    testApp = await startTestApp({
      env: { ...providers.env, DRIVE_SYNC_INTERVAL_MINUTES: '0' },
      worker: true,
    });
    deps = testApp.runtime.deps;
  });
  afterAll(async () => {
    await testApp?.close();
    await providers?.close();
  });

  async function googleMember(refreshToken: string | null): Promise<GoogleMember> {
    const record = registrationRecord(`member-${uniqueSuffix()}@example.com`, {
      refresh_token: refreshToken,
    });
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v2/users/register',
      headers: bearer(TEST_REGISTRATION_SECRET),
      payload: record,
    });
    expect(response.statusCode).toBe(201);
    const body = response.json() as Record<string, unknown> & { access_token: string };
    const caller = await deps.callers.find(body.access_token);
    if (caller === undefined) throw new Error('a fresh token found no caller');
    const browserToken = `ya29.browser-${uniqueSuffix()}`;
    drive.addAccessToken(browserToken);
    return { token: body.access_token, caller, body, refreshToken, browserToken };
  }

  async function indexAs(member: GoogleMember, files: DriveFileInput[], caller: Caller = member.caller) {
    const userContext = await getUserContext(deps, caller);
    const queued = await indexDriveFiles(
      deps,
      caller,
      { files, user_context: userContext },
      member.browserToken,
    );
    const job = await waitForIndexJob(testApp, caller, queued.result_id);
    expect(job.status).toBe('completed');
    return job;
  }

  /** A round with the clock `hours` further ahead than any earlier test's. */
  function roundLater(hours: number, intervalMinutes = 60): Promise<DriveSyncRound> {
    hoursAhead += hours;
    const at = new Date(Date.now() + hoursAhead * HOUR_MS);
    return queueDueDriveSyncs({ ...deps, now: () => at }, intervalMinutes);
  }

  const text = (name: string, content: string, parents: string[] = ['root']) =>
    drive.addFile({ name, mimeType: 'text/plain', content, parents });

  it('re-indexes the union of what each member picked, with a token refreshed from the stored one', async () => {
    const ann = await googleMember(google.issueRefreshToken());
    const folder = drive.addFolder({ name: 'Policies', parents: ['root'] });
    text('leave.txt', 'Parental leave lasts sixteen weeks.', [folder]);
    const travel = text('travel.txt', 'Trains are booked in second class.');
    const fixed = text('fixed.txt', 'The office opens at nine.');
    await indexAs(ann, [picked(travel, 'travel.txt'), picked(fixed, 'fixed.txt')]);
    await indexAs(ann, [picked(folder, 'Policies', 'folder')]);

    // The browser's token is gone (expired): only a refreshed one can read Drive now.
    drive.revokeAccessToken(ann.browserToken);
    drive.updateFile(travel, { content: 'Trains are booked in first class since March.' });
    const sabbatical = text('sabbatical.txt', 'A sabbatical follows seven years of service.', [folder]);
    drive.clearRecords();

    const round = await roundLater(2);
    const mine = round.queued.filter((sync) => sync.teamId === ann.caller.teamId);
    expect(mine).toEqual([
      {
        connectorId: expect.any(Number),
        teamId: ann.caller.teamId,
        userId: ann.caller.userId,
        jobId: expect.any(String),
        entries: 3,
      },
    ]);
    expect(round.skipped.filter((skip) => skip.teamId === ann.caller.teamId)).toEqual([]);
    const refreshes = google.tokenRequests.filter((form) => form.refresh_token === ann.refreshToken);
    expect(refreshes).toEqual([
      {
        grant_type: 'refresh_token',
        refresh_token: ann.refreshToken,
        client_id: providers.env.GOOGLE_CLIENT_ID,
        client_secret: providers.env.GOOGLE_CLIENT_SECRET,
      },
    ]);
    expect(google.refreshedTokens.get(ann.refreshToken ?? '')).toHaveLength(1);
    expect(JSON.stringify(round)).not.toContain(ann.refreshToken);

    const job = await waitForIndexJob(testApp, ann.caller, mine[0]?.jobId ?? '');
    expect(job).toMatchObject({ status: 'completed', kind: 'googledrive', progress: { total: 4 } });
    expect(drive.requests.length).toBeGreaterThan(0);
    expect(drive.requests.every((request) => request.tokenMatched)).toBe(true);
    // Changed and new files are read again; the unchanged one is not downloaded again.
    expect(drive.contentRequests(travel)).not.toEqual([]);
    expect(drive.contentRequests(sabbatical)).not.toEqual([]);
    expect(drive.contentRequests(fixed)).toEqual([]);
    const firstClass = await searchDocuments(deps, ann.caller, { query: 'first class March', topK: 3 });
    expect(firstClass.results[0]).toMatchObject({ external_id: travel });
    const found = await searchDocuments(deps, ann.caller, { query: 'sabbatical', topK: 3 });
    expect(found.results[0]).toMatchObject({ external_id: sabbatical });
    const connector = await getConnector(deps, ann.caller, 'googledrive', String(mine[0]?.connectorId));
    expect(connector.document_count).toBe(4);
  });

  it("drops a file unshared from a member from that member's results at the next round", async () => {
    const ann = await googleMember(google.issueRefreshToken());
    const bobEmail = `bob-${uniqueSuffix()}@example.com`;
    // Proven by the trusted front end: only then does Drive's share with his address count.
    const bob = await invitedMember(
      testApp,
      ann,
      'member',
      { email: bobEmail },
      bearer(TEST_REGISTRATION_SECRET),
    );
    expect(bob.caller.teamId).toBe(ann.caller.teamId);
    const plan = drive.addFile({
      name: 'plan.txt',
      mimeType: 'text/plain',
      content: 'The merger codename is bluefinch.',
      parents: ['root'],
      permissions: [
        { type: 'user', emailAddress: ann.caller.email, role: 'owner' },
        { type: 'user', emailAddress: bobEmail },
      ],
    });
    await indexAs(ann, [picked(plan, 'plan.txt')]);
    const bobFinds = async () =>
      (await searchDocuments(deps, bob.caller, { query: 'bluefinch', topK: 5 })).results.map(
        (result) => result.external_id,
      );
    expect(await bobFinds()).toEqual([plan]);

    // Sharing changes leave modifiedTime alone: only the re-read permissions tell.
    drive.unshare(plan, bobEmail);
    const round = await roundLater(2);
    const mine = round.queued.filter((sync) => sync.teamId === ann.caller.teamId);
    expect(mine).toHaveLength(1);
    const job = await waitForIndexJob(testApp, ann.caller, mine[0]?.jobId ?? '');
    // Its content is unchanged, but who may open it changed: the document was updated, not re-embedded.
    expect(job.files).toEqual([expect.objectContaining({ id: plan, status: 'indexed', reason: null })]);
    expect(await bobFinds()).toEqual([]);
    const annFinds = await searchDocuments(deps, ann.caller, { query: 'bluefinch', topK: 5 });
    expect(annFinds.results.map((result) => result.external_id)).toEqual([plan]);
  });

  it('skips a member whose refresh token was revoked; the other members and teams go on', async () => {
    const ann = await googleMember(google.issueRefreshToken());
    const carol = await googleMember(google.issueRefreshToken());
    // Carol joins Ann's team (as an accepted invitation would) and indexes into its connector.
    await setUserTeam(testApp.runtime.database.db, carol.caller.userId, ann.caller.teamId);
    const carolInTeam: Caller = { ...carol.caller, teamId: ann.caller.teamId };
    const dave = await googleMember(google.issueRefreshToken());
    const erin = await googleMember(null);
    await indexAs(ann, [picked(text('ann.txt', 'Ann keeps the budget.'), 'ann.txt')]);
    await indexAs(carol, [picked(text('carol.txt', 'Carol keeps the roadmap.'), 'carol.txt')], carolInTeam);
    await indexAs(dave, [picked(text('dave.txt', 'Dave keeps the keys.'), 'dave.txt')]);
    await indexAs(erin, [picked(text('erin.txt', 'Erin keeps the minutes.'), 'erin.txt')]);
    google.revokeRefreshToken(carol.refreshToken ?? '');
    google.revokeRefreshToken(dave.refreshToken ?? '');

    const round = await roundLater(2);
    const teams = [ann, dave, erin].map((member) => member.caller.teamId);
    const queued = round.queued.filter((sync) => teams.includes(sync.teamId));
    expect(queued.map((sync) => sync.userId)).toEqual([ann.caller.userId]);
    const skipped = round.skipped
      .filter((skip) => teams.includes(skip.teamId))
      .sort((a, b) => a.userId - b.userId);
    expect(skipped).toEqual([
      {
        connectorId: queued[0]?.connectorId,
        teamId: ann.caller.teamId,
        userId: carol.caller.userId,
        reason: 'revoked',
        detail: 'The token endpoint refused the refresh (HTTP 400 invalid_grant)',
      },
      {
        connectorId: expect.any(Number),
        teamId: dave.caller.teamId,
        userId: dave.caller.userId,
        reason: 'revoked',
        detail: 'The token endpoint refused the refresh (HTTP 400 invalid_grant)',
      },
    ]);
    // Erin stored no refresh token: no call to Google, nothing to report.
    expect(round.skipped.some((skip) => skip.userId === erin.caller.userId)).toBe(false);
    const reported = JSON.stringify(round);
    for (const secret of [carol.refreshToken, dave.refreshToken, providers.env.GOOGLE_CLIENT_SECRET]) {
      expect(reported).not.toContain(secret);
    }
    const job = await waitForIndexJob(testApp, ann.caller, queued[0]?.jobId ?? '');
    expect(job).toMatchObject({ status: 'completed', progress: { total: 1 } });
  });

  it('does not bring back a picked file whose document a member deleted', async () => {
    const ann = await googleMember(google.issueRefreshToken());
    const kept = text('kept.txt', 'This one stays.');
    const dropped = text('dropped.txt', 'This one was deleted from the index.');
    await indexAs(ann, [picked(kept, 'kept.txt'), picked(dropped, 'dropped.txt')]);
    const { rows } = await testApp.runtime.database.sql.executeSql<{ id: number | string }>(
      'SELECT id FROM documents WHERE team_id = $1 AND external_id = $2',
      [ann.caller.teamId, dropped],
    );
    await deleteDocument(deps, ann.caller, String(rows[0]?.id));
    drive.clearRecords();

    const round = await roundLater(2);
    const mine = round.queued.filter((sync) => sync.teamId === ann.caller.teamId);
    expect(mine.map((sync) => sync.entries)).toEqual([1]);
    const job = await waitForIndexJob(testApp, ann.caller, mine[0]?.jobId ?? '');
    expect(job).toMatchObject({ status: 'completed', progress: { total: 1 } });
    expect(drive.requests.some((request) => request.fileId === dropped)).toBe(false);
  });

  it('leaves alone connectors synced within the interval, and claims each due one once', async () => {
    const ann = await googleMember(google.issueRefreshToken());
    await indexAs(ann, [picked(text('recent.txt', 'Recently indexed.'), 'recent.txt')]);
    // Its job just completed, which marked the connector synced.
    const now = await queueDueDriveSyncs(deps, 60);
    expect(now.queued.some((sync) => sync.teamId === ann.caller.teamId)).toBe(false);

    // Two workers' rounds at once: one claims the connector, the other leaves it.
    hoursAhead += 2;
    const at = new Date(Date.now() + hoursAhead * HOUR_MS);
    const rounds = await Promise.all([
      queueDueDriveSyncs({ ...deps, now: () => at }, 60),
      queueDueDriveSyncs({ ...deps, now: () => at }, 60),
    ]);
    const jobs = rounds.flatMap((round) => round.queued).filter((sync) => sync.teamId === ann.caller.teamId);
    expect(jobs).toHaveLength(1);
    expect(google.refreshedTokens.get(ann.refreshToken ?? '')).toHaveLength(1);
    await waitForIndexJob(testApp, ann.caller, jobs[0]?.jobId ?? '');
  });

  it('does not sync a connector that never held documents', async () => {
    const bob = await googleMember(google.issueRefreshToken());
    const connectorId = await ensureTeamConnector(deps, bob.caller.teamId, 'googledrive', 'Google Drive');
    const round = await roundLater(24);
    expect(round.queued.some((sync) => sync.connectorId === connectorId)).toBe(false);
    const connector = await getConnector(deps, bob.caller, 'googledrive', String(connectorId));
    expect(connector.last_synced_at).toBeNull();
  });

  it('schedules nothing with an interval of 0 or without Google client credentials', async () => {
    const ann = await googleMember(google.issueRefreshToken());
    await indexAs(ann, [picked(text('off.txt', 'Nothing syncs this.'), 'off.txt')]);
    expect(await roundLater(24, 0)).toEqual({ connectors: 0, queued: [], skipped: [] });

    const { config } = deps;
    const unconfigured = { ...config, oauthProxy: { ...config.oauthProxy, clientCredentials: {} } };
    expect(driveSyncClient(unconfigured)).toBeUndefined();
    expect(driveSyncClient(config)).toEqual({
      tokenUrl: google.tokenUrl,
      clientId: providers.env.GOOGLE_CLIENT_ID,
      clientSecret: providers.env.GOOGLE_CLIENT_SECRET,
    });
    const at = new Date(Date.now() + (hoursAhead + 24) * HOUR_MS);
    expect(await queueDueDriveSyncs({ ...deps, config: unconfigured, now: () => at }, 60)).toEqual({
      connectors: 0,
      queued: [],
      skipped: [],
    });
    expect(google.refreshedTokens.has(ann.refreshToken ?? '')).toBe(false);
  });

  it('reports a refused client per member, without the secret, and goes on', async () => {
    const ann = await googleMember(google.issueRefreshToken());
    await indexAs(ann, [picked(text('client.txt', 'The client is refused.'), 'client.txt')]);
    const { config } = deps;
    const client = driveSyncClient(config);
    if (client === undefined) throw new Error('the Google client is configured in this app');
    const wrongSecret = 'GOCSPX-not-the-secret';
    const misconfigured = {
      ...config,
      oauthProxy: {
        ...config.oauthProxy,
        clientCredentials: {
          googledrive: { ...client, clientSecret: wrongSecret, tokenUrls: [client.tokenUrl] },
        },
      },
    };
    hoursAhead += 24;
    const at = new Date(Date.now() + hoursAhead * HOUR_MS);
    const round = await queueDueDriveSyncs({ ...deps, config: misconfigured, now: () => at }, 60);
    expect(round.skipped.filter((skip) => skip.userId === ann.caller.userId)).toEqual([
      {
        connectorId: expect.any(Number),
        teamId: ann.caller.teamId,
        userId: ann.caller.userId,
        reason: 'client_refused',
        detail: 'The token endpoint refused the refresh (HTTP 401 invalid_client)',
      },
    ]);
    expect(round.queued).toEqual([]);
    expect(JSON.stringify(round)).not.toContain(wrongSecret);
  });
});
